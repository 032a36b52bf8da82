// Builds dist/widgets.js (every widget, one minified ES module) and dist/dashboard.html (the page
// with dashboard.ts inlined, importing /widgets.js), prints raw and gzipped sizes, and exits
// non-zero when the bundle is over its gzipped budget.
import { build, type Plugin } from "esbuild";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

// `--budget N` (bytes, gzipped) lets a test prove the over-budget exit.
const budgetArg = process.argv.indexOf("--budget");
const BUDGET_GZIP = budgetArg > 0 ? Number(process.argv[budgetArg + 1]) : 25 * 1024;
const src = join(import.meta.dir, "src");
const dist = join(import.meta.dir, "dist");
const common = {
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  write: false,
  legalComments: "none",
  logLevel: "warning",
} as const;

// The page reuses the bundle's API client instead of carrying a second copy.
const apiFromBundle: Plugin = {
  name: "api-from-bundle",
  setup(b) {
    b.onResolve({ filter: /^\.\/api(\.ts)?$/ }, () => ({ path: "/widgets.js", external: true }));
  },
};

const widgets = await build({ ...common, entryPoints: [join(src, "index.ts")] });
const bundle = widgets.outputFiles[0].contents;

const page = await build({
  ...common,
  stdin: { contents: "import { startDashboard } from './dashboard'; startDashboard();", resolveDir: src, loader: "ts" },
  plugins: [apiFromBundle],
});
const script = page.outputFiles[0].text.replace(/<\/script/gi, "<\\/script");
const marker = '<script type="module" data-dashboard></script>';
const template = readFileSync(join(src, "dashboard.html"), "utf8");
if (!template.includes(marker)) throw new Error(`dashboard.html lacks ${marker}`);
const html = template.replace(marker, () => `<script type="module">${script.trim()}</script>`);

mkdirSync(dist, { recursive: true });
writeFileSync(join(dist, "widgets.js"), bundle);
writeFileSync(join(dist, "dashboard.html"), html);

const gz = (b: Uint8Array | string) => gzipSync(b, { level: 9 }).length;
const row = (name: string, raw: number, zipped: number) =>
  `${name.padEnd(16)} ${String(raw).padStart(7)} B raw ${String(zipped).padStart(7)} B gzip`;
const bundleGz = gz(bundle);
console.log(row("widgets.js", bundle.length, bundleGz) + `   (budget ${BUDGET_GZIP} B gzip)`);
console.log(row("dashboard.html", Buffer.byteLength(html), gz(html)));
if (bundleGz > BUDGET_GZIP) {
  console.error(`widgets.js is ${bundleGz - BUDGET_GZIP} B over its gzipped budget`);
  process.exit(1);
}
