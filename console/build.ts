// Builds the console into dist/: the entry app-<hash>.js and app-<hash>.css, one chunk per page under
// chunks/ (loaded when the page is first shown) and the chunks they share, all minified with
// content-hashed names so they can be cached forever; dist/index.html points at the entry and preloads
// the chunks it imports. Prints every file's raw and gzipped size and exits non-zero when what a user
// loads first (entry, the chunks it imports, CSS) or what any page adds is over its gzipped budget.
import { build, type Metafile } from "esbuild";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { gzipSync } from "node:zlib";

// `--budget N` and `--page-budget N` (bytes, gzipped) let a test prove the over-budget exits.
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
export const BUDGET_GZIP = arg("--budget", 40 * 1024);
// The link's page (analytics, QR code, journeys, insights and the chunks it shares with the form and the
// list) is the largest, at about 10 KB.
export const PAGE_BUDGET_GZIP = arg("--page-budget", 12 * 1024);
const root = import.meta.dir;
const src = join(root, "src");
const dist = join(root, "dist");

const result = await build({
  entryPoints: { app: join(src, "main.tsx") },
  bundle: true,
  splitting: true,
  minify: true,
  format: "esm",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  entryNames: "[name]-[hash]",
  chunkNames: "chunks/[name]-[hash]",
  write: false,
  metafile: true,
  absWorkingDir: root,
  outdir: dist,
  legalComments: "none",
  logLevel: "warning",
});
const outputs = result.metafile.outputs as Metafile["outputs"];
const files = new Map(result.outputFiles.map((f) => [relative(dist, f.path), f.contents]));
const name = (out: string) => relative(dist, join(root, out)); // metafile paths are relative to absWorkingDir
const cwdOut = (file: string) => Object.keys(outputs).find((o) => name(o) === file)!;

const entry = [...files.keys()].find((f) => outputs[cwdOut(f)].entryPoint?.endsWith("src/main.tsx") && f.endsWith(".js"))!;
const css = [...files.keys()].find((f) => f.endsWith(".css"))!;
/** A file and every chunk it imports statically (what the browser fetches before running it). */
const closure = (file: string, into = new Set<string>()) => {
  if (into.has(file)) return into;
  into.add(file);
  for (const i of outputs[cwdOut(file)].imports) if (i.kind === "import-statement") closure(name(i.path), into);
  return into;
};
const initial = closure(entry);
// Each page is a dynamic import of the entry: a chunk named after its module.
const pages = outputs[cwdOut(entry)].imports.filter((i) => i.kind === "dynamic-import").map((i) => name(i.path));

const template = readFileSync(join(src, "index.html"), "utf8");
const url = (file: string) => `/console/assets/${file}`;
const preloads = [...initial]
  .filter((f) => f !== entry)
  .map((f) => `<link rel="modulepreload" href="${url(f)}" />`)
  .join("\n    ");
const html = template.replace("%APP_JS%", url(entry)).replace("%APP_CSS%", url(css)).replace("%PRELOADS%", preloads);

rmSync(dist, { recursive: true, force: true });
for (const [file, contents] of files) {
  mkdirSync(join(dist, dirname(file)), { recursive: true });
  writeFileSync(join(dist, file), contents);
}
writeFileSync(join(dist, "index.html"), html);
writeFileSync(
  join(dist, "manifest.json"),
  JSON.stringify({ js: entry, css, initial: [...initial], pages, files: [...files.keys()].sort() }, null, 2),
);

const gz = new Map([...files].map(([f, b]) => [f, gzipSync(b, { level: 9 }).length]));
const sum = (set: Iterable<string>) => [...set].reduce((n, f) => n + gz.get(f)!, 0);
const row = (file: string, what: string) =>
  `${file.padEnd(40)} ${String(files.get(file)!.length).padStart(7)} B raw ${String(gz.get(file)).padStart(7)} B gzip  ${what}`;
const over: string[] = [];

console.log("first load:");
for (const f of [...initial, css]) console.log(row(f, f === entry ? "entry" : f === css ? "styles" : "imported by the entry"));
const first = sum(initial) + gz.get(css)!;
console.log(`console first load ${first} B gzip (budget ${BUDGET_GZIP} B gzip)`);
if (first > BUDGET_GZIP) over.push(`the console's first load is ${first - BUDGET_GZIP} B over its gzipped budget`);

// A page's cost is what opening it fetches beyond the first load: its chunk and the chunks only pages share.
console.log(`pages (loaded when first shown; budget ${PAGE_BUDGET_GZIP} B gzip each, with the chunks they share):`);
for (const page of pages) {
  const extra = [...closure(page)].filter((f) => !initial.has(f));
  const cost = sum(extra);
  const shared = extra.filter((f) => f !== page);
  const module = outputs[cwdOut(page)].entryPoint!.replace(/^src\/pages\/|\.tsx?$/g, "");
  console.log(row(page, `${module}: ${cost} B gzip${shared.length ? ` with ${shared.join(", ")}` : ""}`));
  if (cost > PAGE_BUDGET_GZIP) over.push(`the page ${module} is ${cost - PAGE_BUDGET_GZIP} B over its gzipped budget`);
}
const others = [...files.keys()].filter((f) => !initial.has(f) && f !== css && !pages.includes(f));
if (others.length) console.log("chunks shared by pages:");
for (const f of others) console.log(row(f, "shared by pages"));
console.log(`console all files ${sum(files.keys())} B gzip`);
for (const o of over) console.error(o);
if (over.length) process.exit(1);
