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

const manifestOf = () =>
  JSON.parse(readFileSync(join(dist, "manifest.json"), "utf8")) as {
    js: string;
    css: string;
    initial: string[];
    pages: string[];
    files: string[];
  };
const gz = (file: string) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
/** The chunks a built file imports statically (`import … from "./chunks/…"`), as paths in dist/. */
const staticImports = (file: string) =>
  [...readFileSync(join(dist, file), "utf8").matchAll(/(?:import|from)\s*"(\.\/[^"]+)"/g)].map((m) => join(file, "..", m[1]));

describe("build", () => {
  test("hashed entry, CSS and chunks; the page preloads the first load; first load within 40 KB gzipped", () => {
    const r = build();
    expect(r.exitCode).toBe(0);
    const manifest = manifestOf();
    expect(manifest.js).toMatch(/^app-[A-Z0-9]{8}\.js$/);
    expect(manifest.css).toMatch(/^app-[A-Z0-9]{8}\.css$/);
    for (const f of manifest.files) if (f !== manifest.js && f !== manifest.css) expect(f).toMatch(/^chunks\/[a-z-]+-[A-Z0-9]{8}\.js$/);
    // What the browser fetches before the console runs: the entry and, recursively, what it imports statically.
    const first = new Set<string>();
    const walk = (f: string) => {
      if (first.has(f)) return;
      first.add(f);
      staticImports(f).forEach(walk);
    };
    walk(manifest.js);
    expect([...first].sort()).toEqual([...manifest.initial].sort());
    const total = [...first].reduce((n, f) => n + gz(f), 0) + gz(manifest.css);
    const out = r.stdout.toString();
    expect(out).toContain(`console first load ${total} B gzip (budget 40960 B gzip)`);
    expect(total).toBeLessThanOrEqual(40 * 1024);
    for (const f of manifest.files) expect(out).toContain(`${f.padEnd(40)} `); // every file has its row
    const html = readFileSync(join(dist, "index.html"), "utf8");
    expect(html).toContain(`<script type="module" src="/console/assets/${manifest.js}"></script>`);
    expect(html).toContain(`<link rel="stylesheet" href="/console/assets/${manifest.css}" />`);
    for (const f of first) if (f !== manifest.js) expect(html).toContain(`<link rel="modulepreload" href="/console/assets/${f}" />`);
    expect(html).toContain('<script type="module" src="/widgets.js"></script>');
    expect(html).not.toMatch(/<script(?![^>]*src=)/); // no inline script: the CSP allows none
  });

  test("each page is a chunk the entry imports only when it is shown, within its own budget", () => {
    const manifest = manifestOf();
    const entry = readFileSync(join(dist, manifest.js), "utf8");
    expect(manifest.pages.length).toBeGreaterThanOrEqual(16);
    for (const page of manifest.pages) {
      expect(manifest.initial).not.toContain(page);
      expect(entry).toContain(`import("./${page}")`);
      expect(gz(page)).toBeLessThanOrEqual(12 * 1024);
    }
    // The pages added last are among them, not in the first load.
    for (const name of ["shares", "imports", "alerts"]) expect(manifest.pages.some((p) => p.startsWith(`chunks/${name}-`))).toBe(true);
  });

  test("exits non-zero when the first load or a page is over budget", () => {
    const r = build("--budget", "1000");
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr.toString()).toContain("the console's first load is");
    expect(r.stderr.toString()).toContain("over its gzipped budget");
    const p = build("--page-budget", "1000");
    expect(p.exitCode).not.toBe(0);
    expect(p.stderr.toString()).toMatch(/the page links\/detail is \d+ B over its gzipped budget/);
    expect(p.stderr.toString()).not.toContain("first load");
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

  test("assets and chunks are immutable; unknown assets and unknown console API paths are JSON 404s", async () => {
    const manifest = manifestOf();
    for (const file of manifest.files) {
      const res = await t.request(`/console/assets/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(file.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array(readFileSync(join(dist, file))));
    }
    for (const path of [
      "/console/assets/app-00000000.js",
      "/console/assets/chunks/links-00000000.js",
      "/console/assets/manifest.json",
      "/console/assets/index.html",
      "/console/assets/chunks/../manifest.json",
      "/console/assets/chunks/%2e%2e%2fmanifest.json",
      "/console/assets/..%2f..%2fbuild.ts",
    ]) {
      const missing = await t.call(path);
      expect([path, missing.status]).toEqual([path, 404]);
    }
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
