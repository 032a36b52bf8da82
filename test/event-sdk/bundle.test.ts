// The SDK's core runs where React Native runs: it bundles for a neutral platform without a single
// import of a Node built-in (or of anything outside its own sources), type-checks without Node or Bun
// types, and works inside a JavaScript context that has only what React Native's engine offers
// (fetch, timers, AbortController): no process, Buffer, require, crypto, TextEncoder or URL.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { build } from "esbuild";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import vm from "node:vm";
import { buildEventSdk, bundleCore, DIST_DIR, SDK_DIR, selfContained, TSC } from "../../event-sdk/build";
import { startProxy, type Proxy } from "./proxy";
import { accountWithLink, countBySeq, range, startSdkServer, storedEvents, type SdkServer } from "./helpers";

let s: SdkServer;
let proxy: Proxy;
beforeAll(async () => {
  s = await startSdkServer();
  proxy = await startProxy(() => s.url);
}, 120_000);
afterAll(async () => {
  await proxy.close();
  await s.stop();
});

test("the core bundles for a neutral platform from its own sources only", async () => {
  const { text, inputs } = await bundleCore({ write: false });
  expect(inputs.length).toBeGreaterThan(5);
  expect(inputs.filter((f) => !f.startsWith("event-sdk/src/"))).toEqual([]);
  expect(inputs).not.toContain("event-sdk/src/file-storage.ts");
  expect(text).not.toMatch(/\brequire\(|from\s*["']node:|import\(["']/);
  console.log(`event-sdk core: ${text.length} bytes unminified`);
});

test("the build refuses a Node built-in in the core", async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-sdk-guard-"));
  try {
    writeFileSync(join(dir, "entry.ts"), `import { readFileSync } from "node:fs";\nexport const f = readFileSync;\n`);
    const attempt = build({
      entryPoints: [join(dir, "entry.ts")],
      bundle: true,
      platform: "neutral",
      plugins: [selfContained],
      write: false,
      logLevel: "silent",
    });
    await expect(attempt).rejects.toThrow('may not import "node:fs"');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the core type-checks without Node or Bun types", () => {
  const tsc = Bun.spawnSync([TSC, "-p", join(SDK_DIR, "tsconfig.json"), "--noEmit"], { stdout: "pipe", stderr: "pipe" });
  expect(tsc.stdout.toString() + tsc.stderr.toString()).toBe("");
  expect(tsc.exitCode).toBe(0);
});

test("in a context with React Native's globals only, the core delivers events to our server", async () => {
  const acc = await accountWithLink(s.t);
  const { text } = await bundleCore({ write: false, format: "iife", globalName: "SvcEvents" });
  const logs: unknown[] = [];
  const context = vm.createContext({
    fetch: (url: string, init: RequestInit) => fetch(url, init),
    setTimeout,
    clearTimeout,
    AbortController,
    console: { log: (...a: unknown[]) => logs.push(a), warn: (...a: unknown[]) => logs.push(a), error: (...a: unknown[]) => logs.push(a) },
    config: { apiKey: acc.key, baseUrl: proxy.url, linkId: acc.linkId, batchSize: 10 },
  });
  const missing = vm.runInContext(
    `["process", "Buffer", "require", "crypto", "TextEncoder", "URL", "Blob"].filter((name) => typeof globalThis[name] !== "undefined")`,
    context,
  );
  expect(missing).toEqual([]);
  vm.runInContext(text, context);
  const stats = await vm.runInContext(
    `(async () => {
      const client = await SvcEvents.createEventClient(config);
      for (let seq = 1; seq <= 25; seq++) client.track("tick", { seq });
      await client.screen("Home");
      await client.conversion("purchase", { revenue_cents: 100, currency: "EUR" });
      return client.shutdown({ timeoutMs: 10000 });
    })()`,
    context,
  );
  expect(stats).toMatchObject({ queued: 0, delivered: 27, dropped: 0 });
  expect(logs).toEqual([]);
  // Ids came from Math.random (no crypto here) and are still version 4 UUIDs.
  const seen = proxy.requests.slice(-3);
  for (const r of seen) expect(r.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const events = await storedEvents(s.t, acc.key, acc.linkId);
  expect(events).toHaveLength(27);
  expect(countBySeq(events.filter((e) => e.event_name === "tick"))).toEqual(new Map(range(1, 25).map((n) => [n, 1])));
  expect(events[0].visitor_id).toMatch(/^[0-9a-f-]{36}$/);
});

test("the package builds: index.js, file-storage.js and their declarations, importable as built", async () => {
  await buildEventSdk({ log: () => {} });
  const files = readdirSync(DIST_DIR);
  for (const f of ["index.js", "index.d.ts", "file-storage.js", "file-storage.d.ts", "client.d.ts"]) expect(files).toContain(f);
  const core = await import(join(DIST_DIR, "index.js"));
  const files2 = await import(join(DIST_DIR, "file-storage.js"));
  expect(typeof core.createEventClient).toBe("function");
  expect(typeof core.memoryStorage).toBe("function");
  expect(typeof files2.fileStorage).toBe("function");
  const pkg = await Bun.file(join(SDK_DIR, "package.json")).json();
  expect(pkg.exports["."].default).toBe("./dist/index.js");
  expect(pkg.exports["./file-storage"].node).toBe("./dist/file-storage.js");
  // What `npm pack` would ship: the built files and the README, no sources or tests.
  const home = mkdtempSync(join(tmpdir(), "svc-sdk-npm-"));
  try {
    const pack = Bun.spawnSync(["npm", "pack", "--dry-run", "--json"], {
      cwd: SDK_DIR,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, npm_config_cache: join(home, "cache") },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(pack.exitCode).toBe(0);
    const shipped = (JSON.parse(pack.stdout.toString())[0].files as { path: string }[]).map((f) => f.path).sort();
    expect(shipped).toContain("dist/index.js");
    expect(shipped).toContain("dist/file-storage.js");
    expect(shipped).toContain("dist/index.d.ts");
    expect(shipped).toContain("README.md");
    expect(shipped.filter((f) => f.startsWith("src/") || f.includes("test"))).toEqual([]);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
