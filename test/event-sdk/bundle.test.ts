// The SDK's core runs where React Native runs: it bundles for a neutral platform without a single
// import of a Node built-in (or of anything outside its own sources), type-checks without Node or Bun
// types, and works inside a JavaScript context that has only what React Native's engine offers
// (fetch, timers, AbortController): no process, Buffer, require, crypto, TextEncoder or URL
// (react-native.test.ts runs it there against our server).
import { expect, test } from "bun:test";
import { build } from "esbuild";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildEventSdk, bundleCore, DIST_DIR, SDK_DIR, selfContained, TSC } from "../../event-sdk/build";
import { childEnv } from "../helpers/stores";

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
  const tsc = Bun.spawnSync([TSC, "-p", join(SDK_DIR, "tsconfig.json"), "--noEmit"], { stdout: "pipe", stderr: "pipe", env: childEnv({}) });
  expect(tsc.stdout.toString() + tsc.stderr.toString()).toBe("");
  expect(tsc.exitCode).toBe(0);
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
