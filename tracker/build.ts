// Builds the tracker: dist/t.js (IIFE, minified), dist/t.<hash8>.js (same bytes, immutable name),
// dist/t.esm.js and dist/manifest.json; prints raw and gzipped sizes; fails over the 2 KB budget.
import { build, type BuildOptions } from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

export const BUDGET_GZIP_BYTES = 2048;

export interface TrackerManifest {
  file: string;
  hash: string;
  bytes: number;
  gzip: number;
}

const src = import.meta.dir + "/src/";
export const DIST_DIR = import.meta.dir + "/dist";

const bundle = async (entry: string, format: "iife" | "esm") => {
  const opts: BuildOptions = {
    entryPoints: [src + entry],
    bundle: true,
    minify: true,
    format,
    target: "es2020",
    legalComments: "none",
    tsconfigRaw: "{}",
    define: format == "iife" ? { SVC_SCRIPT: "true" } : {}, // no "use strict" prologue (13 bytes): nothing here depends on strict mode
    write: false,
  };
  return (await build(opts)).outputFiles![0]!.text;
};

const gz = (s: string) => gzipSync(s, { level: 9 }).length;

/** Builds into tracker/dist; throws when the gzipped IIFE is over budget (nothing is written then). */
export async function buildTracker({ budget = BUDGET_GZIP_BYTES, log = console.log } = {}): Promise<TrackerManifest> {
  const [iife, esm] = await Promise.all([bundle("index.ts", "iife"), bundle("esm.ts", "esm")]);
  const hash = createHash("sha256").update(iife).digest("hex").slice(0, 8);
  const m: TrackerManifest = { file: `t.${hash}.js`, hash, bytes: Buffer.byteLength(iife), gzip: gz(iife) };
  log(`tracker t.js      ${m.bytes} B raw, ${m.gzip} B gzip (budget ${budget} B gzip)`);
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
