// Serves the console built by `npm run build` (console/dist): one HTML page for every path under
// /console (the app routes in the browser), and its content-hashed files: the entry script, the stylesheet
// and the chunks under chunks/ (one per page, loaded when first shown, and those they share). The page
// forbids framing and inline scripts, and sends no Referer (links carry tokens in the fragment anyway).
import { Elysia } from "elysia";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../errors";
import { CONSOLE_API_PREFIX, isUnder, pathOf } from "../http/api-prefix";

const DIST = join(import.meta.dir, "..", "..", "console", "dist");

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-cache",
  // Widgets put their styles in <style> elements of their shadow roots, hence 'unsafe-inline' for styles
  // only; OG image previews may come from any https site, or from a file being chosen (blob:).
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' https: data: blob:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

const TYPES: Record<string, string> = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8" };

export function consoleRoutes() {
  const built = existsSync(join(DIST, "index.html"));
  const page = built ? readFileSync(join(DIST, "index.html")) : null;
  // Only the files the build lists are served (never a path made up by the request). A dist/ built before
  // the console was split lists only its script and stylesheet.
  type Manifest = { js: string; css: string; files?: string[] };
  const manifest = built ? (JSON.parse(readFileSync(join(DIST, "manifest.json"), "utf8")) as Manifest) : null;
  const assets = new Map<string, Uint8Array<ArrayBuffer>>();
  if (manifest) for (const file of manifest.files ?? [manifest.js, manifest.css]) assets.set(file, readFileSync(join(DIST, file)));
  const hide = { detail: { hide: true } };

  const servePage = ({ request }: { request: Request }) => {
    // An unknown console API path is an API 404, not the page.
    if (isUnder(pathOf(request.url), CONSOLE_API_PREFIX)) throw new AppError("NOT_FOUND", "Route not found");
    if (!page) throw new AppError("NOT_FOUND", "The console is not built: run `npm run build`");
    return new Response(page, { headers: PAGE_HEADERS });
  };
  return new Elysia({ name: "console" })
    .get(
      "/console/assets/*",
      ({ params }) => {
        const file = params["*"];
        const body = assets.get(file);
        if (!body) throw new AppError("NOT_FOUND", "Not found");
        return new Response(body, {
          headers: {
            "content-type": TYPES[file.slice(file.lastIndexOf(".") + 1)],
            "cache-control": "public, max-age=31536000, immutable",
            "x-content-type-options": "nosniff",
          },
        });
      },
      hide,
    )
    .get("/console", servePage, hide)
    .get("/console/*", servePage, hide);
}
