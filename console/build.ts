// Builds the console: dist/app.<hash>.js and dist/app.<hash>.css (Preact app, minified, content-hashed
// names so they can be cached forever) and dist/index.html pointing at them; prints raw and gzipped
// sizes and exits non-zero when the JS and CSS together are over their gzipped budget.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

// `--budget N` (bytes, gzipped) lets a test prove the over-budget exit.
const budgetArg = process.argv.indexOf("--budget");
export const BUDGET_GZIP = budgetArg > 0 ? Number(process.argv[budgetArg + 1]) : 40 * 1024;
const src = join(import.meta.dir, "src");
const dist = join(import.meta.dir, "dist");

const result = await build({
  entryPoints: { app: join(src, "main.tsx") },
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  write: false,
  outdir: dist,
  legalComments: "none",
  logLevel: "warning",
});
const js = result.outputFiles.find((f) => f.path.endsWith(".js"))!.contents;
const css = result.outputFiles.find((f) => f.path.endsWith(".css"))!.contents;
const hash = (b: Uint8Array) => createHash("sha256").update(b).digest("hex").slice(0, 10);
const jsName = `app.${hash(js)}.js`;
const cssName = `app.${hash(css)}.css`;

const template = readFileSync(join(src, "index.html"), "utf8");
const html = template.replace("%APP_JS%", `/console/assets/${jsName}`).replace("%APP_CSS%", `/console/assets/${cssName}`);

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
writeFileSync(join(dist, jsName), js);
writeFileSync(join(dist, cssName), css);
writeFileSync(join(dist, "index.html"), html);
writeFileSync(join(dist, "manifest.json"), JSON.stringify({ js: jsName, css: cssName }));

const gz = (b: Uint8Array | string) => gzipSync(b, { level: 9 }).length;
const row = (name: string, raw: number, zipped: number) =>
  `${name.padEnd(24)} ${String(raw).padStart(7)} B raw ${String(zipped).padStart(7)} B gzip`;
const total = gz(js) + gz(css);
console.log(row(jsName, js.length, gz(js)));
console.log(row(cssName, css.length, gz(css)));
console.log(`console total ${total} B gzip (budget ${BUDGET_GZIP} B gzip)`);
if (total > BUDGET_GZIP) {
  console.error(`the console is ${total - BUDGET_GZIP} B over its gzipped budget`);
  process.exit(1);
}
