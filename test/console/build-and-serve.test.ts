// The console's build (content-hashed assets, sizes printed, gzipped budget enforced) and how the server
// serves it: one page for every /console path with its security headers, immutable assets, API 404s.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { createTestApp, type TestApp } from "../helpers/app";
import { runBuild } from "../helpers/build-script";

const root = join(import.meta.dir, "../..");
const dist = join(root, "console/dist");
const build = (...args: string[]) => runBuild("console/build.ts", ...args);

describe("build", () => {
  test("writes hashed JS and CSS and a page that names them, prints sizes, stays within 40 KB gzipped", () => {
    const r = build();
    expect(r.exitCode).toBe(0);
    const manifest = JSON.parse(readFileSync(join(dist, "manifest.json"), "utf8"));
    expect(manifest.js).toMatch(/^app\.[0-9a-f]{10}\.js$/);
    expect(manifest.css).toMatch(/^app\.[0-9a-f]{10}\.css$/);
    const js = readFileSync(join(dist, manifest.js));
    const css = readFileSync(join(dist, manifest.css));
    const total = gzipSync(js, { level: 9 }).length + gzipSync(css, { level: 9 }).length;
    expect(r.stdout.toString()).toContain(`console total ${total} B gzip (budget 40960 B gzip)`);
    expect(total).toBeLessThanOrEqual(40 * 1024);
    const html = readFileSync(join(dist, "index.html"), "utf8");
    expect(html).toContain(`<script type="module" src="/console/assets/${manifest.js}"></script>`);
    expect(html).toContain(`<link rel="stylesheet" href="/console/assets/${manifest.css}" />`);
    expect(html).toContain('<script type="module" src="/widgets.js"></script>');
    expect(html).not.toMatch(/<script(?![^>]*src=)/); // no inline script: the CSP allows none
  });

  test("exits non-zero over budget", () => {
    const r = build("--budget", "1000");
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr.toString()).toContain("over its gzipped budget");
    expect(build().exitCode).toBe(0);
  });
});

describe("serving", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  test("every console path is the page, with its CSP and framing and referrer rules", async () => {
    for (const path of ["/console", "/console/links", "/console/links/0b6f3c1e-0000-4000-8000-000000000000/edit", "/console/setup"]) {
      const res = await t.request(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const csp = res.headers.get("content-security-policy")!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      expect(await res.text()).toContain('<div id="app">');
    }
  });

  test("assets are immutable; unknown assets and unknown console API paths are JSON 404s", async () => {
    const manifest = JSON.parse(readFileSync(join(dist, "manifest.json"), "utf8"));
    const js = await t.request(`/console/assets/${manifest.js}`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const css = await t.request(`/console/assets/${manifest.css}`);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    const missing = await t.call("/console/assets/app.0000000000.js");
    expect(missing.status).toBe(404);
    const api = await t.call("/console/api/nothing-here");
    expect(api.status).toBe(404);
    expect(api.body.error.code).toBe("NOT_FOUND");
  });

  test("'console' cannot be taken as a short code", async () => {
    const { key } = await t.createAccount();
    const res = await t.call("/public-api/v1/links", {
      method: "POST",
      key,
      json: { url: "https://example.com", custom_alias: "console" },
    });
    expect(res.status).toBe(400);
  });
});
