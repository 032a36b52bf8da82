// The browser assets built by `bun run build`: the tracker (/t.js and its content-hashed twin),
// the dashboard widgets bundle (/widgets.js) and the dashboard page (/dashboard).
import { Elysia } from "elysia";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../errors";

const ROOT = join(import.meta.dir, "..", "..");
const TRACKER_DIST = join(ROOT, "tracker", "dist");
const WIDGETS_DIST = join(ROOT, "dashboard-widgets", "dist");

const JS = "text/javascript; charset=utf-8";
const IMMUTABLE = "public, max-age=31536000, immutable";
const SHORT = "public, max-age=300";

function asset(path: string, type: string, cacheControl: string) {
  if (!existsSync(path)) return null;
  const body = readFileSync(path);
  const etag = `"${new Bun.CryptoHasher("sha256").update(body).digest("hex").slice(0, 16)}"`;
  return (request: Request) =>
    request.headers.get("if-none-match") === etag
      ? new Response(null, { status: 304, headers: { etag, "cache-control": cacheControl } })
      : new Response(body, { headers: { "content-type": type, "cache-control": cacheControl, etag, "access-control-allow-origin": "*" } });
}

const missing = () => {
  throw new AppError("NOT_FOUND", "Asset not built: run `npm run build`");
};

export function assetRoutes() {
  const manifest = existsSync(join(TRACKER_DIST, "manifest.json"))
    ? (JSON.parse(readFileSync(join(TRACKER_DIST, "manifest.json"), "utf8")) as { file: string })
    : null;
  const tracker = asset(join(TRACKER_DIST, "t.js"), JS, SHORT);
  const hashed = manifest ? asset(join(TRACKER_DIST, manifest.file), JS, IMMUTABLE) : null;
  const widgets = asset(join(WIDGETS_DIST, "widgets.js"), JS, SHORT);
  const dashboard = asset(join(WIDGETS_DIST, "dashboard.html"), "text/html; charset=utf-8", "no-cache");
  const hide = { detail: { hide: true } };
  const app = new Elysia()
    .get("/t.js", ({ request }) => (tracker ?? missing)(request), hide)
    .get("/widgets.js", ({ request }) => (widgets ?? missing)(request), hide)
    .get("/dashboard", ({ request }) => (dashboard ?? missing)(request), hide);
  if (manifest && hashed) app.get(`/${manifest.file}`, ({ request }) => hashed(request), hide);
  return app;
}
