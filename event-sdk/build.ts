// Builds the SDK into event-sdk/dist: index.js (the core, ES module for a neutral platform: React
// Native, browsers, Node, Bun, Deno), file-storage.js (Node and Bun) and the .d.ts files. The core's
// build fails on any import of a Node built-in or of anything outside src/.
import { build, type Plugin } from "esbuild";
import { existsSync, rmSync } from "node:fs";
import { join, relative } from "node:path";

export const SDK_DIR = import.meta.dir;
export const DIST_DIR = join(SDK_DIR, "dist");
const src = (file: string) => join(SDK_DIR, "src", file);
/** The repository's TypeScript (npm install at the root), else one on the PATH. */
export const TSC = existsSync(join(SDK_DIR, "../node_modules/.bin/tsc")) ? join(SDK_DIR, "../node_modules/.bin/tsc") : "tsc";

/** Refuses every import that is not a relative one: the core must not need the platform's modules. */
export const selfContained: Plugin = {
  name: "self-contained",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) =>
      args.kind === "entry-point" || args.path.startsWith("./")
        ? undefined
        : { errors: [{ text: `the core may not import "${args.path}" (from ${relative(SDK_DIR, args.importer)})` }] },
    );
  },
};

/** The core as one ES module; `write: false` returns the text instead of writing dist/. */
export async function bundleCore({ write = true, format = "esm" as "esm" | "iife", globalName = "" } = {}) {
  const result = await build({
    entryPoints: [src("index.ts")],
    bundle: true,
    platform: "neutral",
    format,
    globalName: globalName || undefined,
    target: "es2019",
    plugins: [selfContained],
    metafile: true,
    write,
    outfile: join(DIST_DIR, "index.js"),
    logLevel: "silent",
  });
  return { text: result.outputFiles?.[0]?.text ?? "", inputs: Object.keys(result.metafile!.inputs) };
}

export async function buildEventSdk({ log = console.log } = {}): Promise<void> {
  rmSync(DIST_DIR, { recursive: true, force: true });
  await bundleCore();
  await build({
    entryPoints: [src("file-storage.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node18",
    outfile: join(DIST_DIR, "file-storage.js"),
    logLevel: "silent",
  });
  for (const project of ["tsconfig.json", "tsconfig.node.json"]) {
    const tsc = Bun.spawnSync([TSC, "-p", join(SDK_DIR, project)], { stdout: "pipe", stderr: "pipe" });
    if (tsc.exitCode !== 0) throw new Error(`declarations (${project}) failed:\n${tsc.stdout.toString()}${tsc.stderr.toString()}`);
  }
  const size = (f: string) => Bun.file(join(DIST_DIR, f)).size;
  log(`event-sdk index.js ${size("index.js")} B, file-storage.js ${size("file-storage.js")} B`);
}

if (import.meta.main) {
  try {
    await buildEventSdk();
  } catch (e) {
    console.error(String(e instanceof Error ? e.message : e));
    process.exit(1);
  }
}
