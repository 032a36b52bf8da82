// The shipped files: builds tracker/dist, checks the manifest and the size budget, then runs the
// minified dist/t.js in a happy-dom page exactly as a <script> tag would, and imports dist/t.esm.js.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { BUDGET_GZIP_BYTES, buildTracker } from "../../tracker/build";
import { CLICK, KEY, LINK, closeWindows, makeEnv, ofType, sent, setHidden, setNavigator, type Env } from "./helpers";
import { runBuild } from "../helpers/build-script";

const ROOT = new URL("../../", import.meta.url).pathname;
const DIST = ROOT + "tracker/dist/";
let code = "";
let buildOut = "";

beforeAll(() => {
  const r = runBuild("tracker/build.ts");
  buildOut = r.stdout.toString() + r.stderr.toString();
  if (r.exitCode !== 0) throw new Error("tracker build failed:\n" + buildOut);
  code = readFileSync(DIST + "t.js", "utf8");
});
afterEach(closeWindows);

/** Runs dist/t.js as the page's <script src=…> with the given attributes; `before` runs first. */
function boot(env: Env, attrs: Record<string, string>, before = "") {
  const doc = env.win.document;
  const s = doc.createElement("script");
  s.setAttribute("src", "https://sho.rt/t.js");
  for (const [k, v] of Object.entries(attrs)) s.setAttribute(k, v);
  new Function("window", before)(env.win);
  Object.defineProperty(doc, "currentScript", { value: s, configurable: true });
  // In a browser these globals are the window's; the bundle schedules through the global setTimeout.
  new Function("window", "document", "setTimeout", code)(env.win, doc, env.clock.setTimeout);
  Object.defineProperty(doc, "currentScript", { value: null, configurable: true });
  return (env.win as any).svc;
}

const SNIPPET = "window.svc = window.svc || function () { (window.svc.q = window.svc.q || []).push(arguments) };";

describe("build", () => {
  test("prints raw and gzipped sizes and writes the hashed file and manifest", () => {
    expect(buildOut).toMatch(/t\.js\s+\d+ B raw, \d+ B gzip/);
    const m = JSON.parse(readFileSync(DIST + "manifest.json", "utf8"));
    const hash = createHash("sha256").update(code).digest("hex").slice(0, 8);
    expect(m).toEqual({ file: `t.${hash}.js`, hash, bytes: Buffer.byteLength(code), gzip: gzipSync(code, { level: 9 }).length });
    expect(readFileSync(DIST + m.file, "utf8")).toBe(code);
    expect(m.gzip).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
    expect(code).not.toMatch(/\brequire\(|\bimport\b/); // self-contained
  });

  test("fails over budget and then writes nothing", async () => {
    const logs: string[] = [];
    const before = readFileSync(DIST + "manifest.json", "utf8");
    await expect(buildTracker({ budget: 1000, log: (s: string) => logs.push(s) })).rejects.toThrow(/over budget/);
    expect(logs.join("\n")).toContain("budget 1000 B gzip");
    expect(readFileSync(DIST + "manifest.json", "utf8")).toBe(before);
  });
});

describe("dist/t.js in a page", () => {
  test("derives the endpoint from its src, sends page_view and replays queued calls", async () => {
    const env = makeEnv(`https://shop.example/welcome?svc_ref=${LINK}.${CLICK}&utm_medium=email`);
    const svc = boot(
      env,
      { "data-key": KEY },
      SNIPPET + "window.svc('track', 'early', { a: 1 }); window.svc('conversion', 'early_buy', { revenue_cents: 500, currency: 'usd' });",
    );
    expect(env.win.location.href).toBe("https://shop.example/welcome?utm_medium=email");
    expect(typeof svc).toBe("function");
    expect(typeof svc.track).toBe("function");
    expect(typeof svc.conversion).toBe("function");
    svc("track", "via_function", { b: 2 });
    svc.track("via_method");
    svc.conversion("purchase", { revenue_cents: 1999, currency: "EUR" });
    svc("unknown_method", 1); // ignored
    await env.clock.advance(1000);

    expect(env.calls).toHaveLength(1);
    const [c] = env.calls;
    expect(c.url).toBe("https://sho.rt/public-api/v1/journey/events");
    expect(c.headers["X-API-Key"]).toBe(KEY);
    expect(c.key).toBeString();
    expect(c.init.keepalive).toBe(true);
    expect(c.events.map((e) => [e.event_type, e.event_name ?? null])).toEqual([
      ["page_view", null],
      ["custom", "early"],
      ["conversion", "early_buy"],
      ["custom", "via_function"],
      ["custom", "via_method"],
      ["conversion", "purchase"],
    ]);
    for (const e of c.events) expect(e).toMatchObject({ link_id: LINK, visitor_id: CLICK });
    expect(c.events[2]).toMatchObject({ conversion_name: "early_buy", revenue_cents: 500, currency: "USD" });
    expect(c.events[0].page_url).toBe("https://shop.example/welcome?utm_medium=email");
  });

  test("data-link-id, data-api, SPA navigation, scroll and hide", async () => {
    const env = makeEnv("https://app.example/");
    boot(env, { "data-key": KEY, "data-link-id": LINK, "data-api": "http://127.0.0.1:4000/public-api/v1" });
    env.w.history.pushState(null, "", "/settings");
    Object.defineProperty(env.win.document.documentElement, "scrollHeight", { value: 1500, configurable: true });
    Object.defineProperty(env.win, "innerHeight", { value: 1000, configurable: true });
    env.win.dispatchEvent(new env.win.Event("scroll")); // 66 % → 25, 50
    setHidden(env, true);
    await env.clock.advance(0);
    expect(env.calls[0].url).toBe("http://127.0.0.1:4000/public-api/v1/journey/events");
    expect(sent(env).map((e) => [e.event_type, new URL(e.page_url).pathname])).toEqual([
      ["page_view", "/"],
      ["page_view", "/settings"],
      ["scroll_depth", "/settings"],
      ["scroll_depth", "/settings"],
    ]);
    expect(sent(env)[0].link_id).toBe(LINK);
  });

  test("without a link id nothing is sent, and window.svc is still safe to call", async () => {
    const env = makeEnv();
    const svc = boot(env, { "data-key": KEY }, SNIPPET + "window.svc('track', 'x')");
    svc("track", "y");
    svc.conversion("z");
    await env.clock.advance(60_000);
    expect(env.calls).toEqual([]);
  });

  test("data-respect-dnt with GPC sends nothing; without the attribute it tracks", async () => {
    const off = makeEnv();
    setNavigator(off, { globalPrivacyControl: true });
    boot(off, { "data-key": KEY, "data-link-id": LINK, "data-respect-dnt": "" });
    await off.clock.advance(5000);
    expect(off.calls).toEqual([]);

    const on = makeEnv();
    setNavigator(on, { globalPrivacyControl: true });
    boot(on, { "data-key": KEY, "data-link-id": LINK });
    await on.clock.advance(1000);
    expect(ofType(on, "page_view")).toHaveLength(1);
  });

  test("data-exclude", async () => {
    const env = makeEnv("https://shop.example/admin/users");
    boot(env, { "data-key": KEY, "data-link-id": LINK, "data-exclude": "/admin/*,/login" });
    await env.clock.advance(5000);
    expect(env.calls).toEqual([]);
  });

  test("data-* attributes other than the documented ones change nothing", async () => {
    const env = makeEnv();
    const attrs = { "data-flush-delay": "0", "data-window": "x", "data-now": "x", "data-set-timeout": "x" };
    const svc = boot(env, { "data-key": KEY, "data-link-id": LINK, ...attrs });
    svc.track("a");
    await env.clock.advance(999);
    expect(env.calls).toEqual([]);
    await env.clock.advance(1);
    expect(sent(env).map((e) => e.event_name ?? e.event_type)).toEqual(["page_view", "a"]);
  });

  test("a second copy of the script does not track twice", async () => {
    const env = makeEnv();
    const first = boot(env, { "data-key": KEY, "data-link-id": LINK });
    const second = boot(env, { "data-key": KEY, "data-link-id": LINK });
    expect(second).toBe(first);
    env.w.history.pushState(null, "", "/next");
    await env.clock.advance(1000);
    expect(ofType(env, "page_view")).toHaveLength(2);
  });
});

describe("dist/t.esm.js", () => {
  test("exports createTracker for single-page apps", async () => {
    const { createTracker } = await import(DIST + "t.esm.js");
    const env = makeEnv("https://spa.example/");
    const t = createTracker({
      key: KEY,
      api: "https://sho.rt/public-api/v1",
      linkId: LINK,
      window: env.w,
      now: env.clock.now,
      setTimeout: env.clock.setTimeout,
    });
    t.track("hello");
    t.flush();
    await env.clock.advance(0);
    expect(sent(env).map((e) => e.event_name ?? e.event_type)).toEqual(["page_view", "hello"]);
  });
});
