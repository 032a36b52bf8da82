// Builds the tracker: dist/t.js (IIFE, minified), dist/t.<hash8>.js (same bytes, immutable name),
// dist/t.esm.js and dist/manifest.json; prints raw, gzipped and brotli sizes; fails over the budget.
import { build, type BuildOptions } from "esbuild";
import { minify } from "terser";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/** Gzipped bytes (zlib level 9, as `gzip -9`) t.js may have (docs/benchmarks.md "Tracker size"). */
export const BUDGET_GZIP_BYTES = 1500;

export interface TrackerManifest {
  file: string;
  hash: string;
  bytes: number;
  gzip: number;
}

const src = import.meta.dir + "/src/";
export const DIST_DIR = import.meta.dir + "/dist";

/**
 * One build of the tracker, not written: t.js ("iife") or t.esm.js ("esm"). esbuild bundles and
 * minifies; terser then compresses and renames again, which gzips ~20 bytes smaller (its names reuse
 * the same few letters more often). Only safe transforms: no `unsafe*` options.
 */
export const bundle = async (format: "iife" | "esm") => {
  const opts: BuildOptions = {
    entryPoints: [src + (format == "iife" ? "index.ts" : "esm.ts")],
    bundle: true,
    minify: true,
    format,
    target: "es2020",
    legalComments: "none",
    tsconfigRaw: "{}", // no "use strict" prologue (13 bytes): nothing here depends on strict mode
    // t.js leaves out the options a <script> tag cannot pass (see SVC_SCRIPT in src/tracker.ts).
    define: format == "iife" ? { SVC_SCRIPT: "true" } : {},
    write: false,
  };
  const js = (await build(opts)).outputFiles![0]!.text;
  const min = await minify(js, { ecma: 2020, module: format == "esm", compress: { passes: 3 }, mangle: true });
  return min.code! + "\n";
};

export const gz = (s: string) => gzipSync(s, { level: 9 }).length;
export const br = (s: string) => brotliCompressSync(s, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

/** Builds into tracker/dist; throws when the gzipped IIFE is over budget (nothing is written then). */
export async function buildTracker({ budget = BUDGET_GZIP_BYTES, log = console.log } = {}): Promise<TrackerManifest> {
  const [iife, esm] = await Promise.all([bundle("iife"), bundle("esm")]);
  const hash = createHash("sha256").update(iife).digest("hex").slice(0, 8);
  const m: TrackerManifest = { file: `t.${hash}.js`, hash, bytes: Buffer.byteLength(iife), gzip: gz(iife) };
  log(`tracker t.js      ${m.bytes} B raw, ${m.gzip} B gzip (budget ${budget} B gzip), ${br(iife)} B brotli`);
  log(`tracker t.esm.js  ${Buffer.byteLength(esm)} B raw, ${gz(esm)} B gzip`);
  if (m.gzip > budget) throw new Error(`tracker over budget: ${m.gzip} B gzip > ${budget} B`);

  mkdirSync(DIST_DIR, { recursive: true });
  for (const f of readdirSync(DIST_DIR)) if (/^t\.[0-9a-f]{8}\.js$/.test(f)) rmSync(`${DIST_DIR}/${f}`);
  writeFileSync(`${DIST_DIR}/t.js`, iife);
  writeFileSync(`${DIST_DIR}/${m.file}`, iife);
  writeFileSync(`${DIST_DIR}/t.esm.js`, esm);
  writeFileSync(`${DIST_DIR}/manifest.json`, JSON.stringify(m, null, 2) + "\n");
  return m;
}

if (import.meta.main) {
  try {
    await buildTracker();
  } catch (e) {
    console.error(String(e instanceof Error ? e.message : e));
    process.exit(1);
  }
}
