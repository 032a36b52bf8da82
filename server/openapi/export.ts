// Writes the OpenAPI documents to files (`bun server/openapi/export.ts [public.json] [admin.json]`), for
// the typed client's build and the lint. The route table exists only in a built app, so this opens
// one on embedded stores in a temporary directory (a few seconds), describes it and closes it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { loadConfig } from "../config";
import { openRuntime } from "../runtime";
import { describeApi } from "./routes";

const ROOT = join(import.meta.dir, "..", "..");
const [publicOut = join(ROOT, "openapi", "public.json"), adminOut = join(ROOT, "openapi", "admin.json")] = process.argv
  .slice(2)
  .map((p) => resolve(p));

const dataDir = mkdtempSync(join(tmpdir(), "svc-openapi-"));
try {
  const runtime = await openRuntime(
    loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent", APP_SECRET: "openapi-export-only-0123456789abcdef" }),
  );
  const docs = describeApi(runtime.app.routes);
  await runtime.close();
  const problems = [...docs.public.problems, ...docs.admin.problems];
  if (problems.length) throw new Error(`Undocumented routes:\n  ${problems.join("\n  ")}`);
  for (const [out, doc] of [
    [publicOut, docs.public.document],
    [adminOut, docs.admin.document],
  ] as const) {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(doc, null, 2) + "\n");
    console.log(`wrote ${out}`);
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
