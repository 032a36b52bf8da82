// `bun run bench import`: POST /imports of Bitly exports of 100,000 links in all (BENCH_IMPORT_ROWS) against
// bulk-creating the same links with POST /links/bulk (batches of 10,000, the scale tier's maximum), in
// the same run, in-process, embedded PGlite (BENCH_DATABASE_URL: a Postgres server). Target: the import
// takes at most 1.5× the bulk create. Both keep their codes (custom aliases) and titles and tags.
// Beside the wall-clock ratio, the ratio of the process's CPU time (both run in this one process, PGlite
// included): on a loaded machine the wall clock also counts the time other processes held the cores.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../server/config";
import { openRuntime } from "../../server/runtime";

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-import-"));
const databaseUrl = process.env.BENCH_DATABASE_URL;
const rt = await openRuntime(
  loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "error",
    ADMIN_TOKEN: "bench-admin-token-0123456789",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  }),
  { jobs: false },
);
console.log(`Postgres: ${rt.deps.pg.kind}; ${ROWS.toLocaleString("en")} links each`);
const { createAccount, createKey } = await import("../../server/accounts/service");
const { id: accountId } = await createAccount(rt.deps.pg, { name: "bench", tier: "scale" });
const { key } = await createKey(rt.deps.pg, accountId, { name: "bench", scopes: ["links:read", "links:write"] });

const call = (path: string, init: RequestInit & { type?: string } = {}) =>
  rt.app.handle(
    new Request(`http://localhost:3000/public-api/v1${path}`, {
      ...init,
      headers: { "x-api-key": key, "content-type": init.type ?? "application/json" },
    }),
  );

// In rounds of 10,000 links, a bulk create then an import of the same size, so that both write into a
// links table (and its indexes) of the same size: run one after the other, the second would pay for the
// first's 100,000 rows.
// Bulk create: the same fields the import gives (code, destination, title, tags); a description so that
// neither fetches the destination pages in the background.
const ROUND = Math.min(10_000, ROWS);
let bulkSeconds = 0;
let bulkCreated = 0;
let importSeconds = 0;
let acceptSeconds = 0;
let importCreated = 0;
let bulkCpu = 0;
let importCpu = 0;
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
let bytes = 0;
const header = "Title,Link,Custom Link,Destination URL,Tags,Created,Clicks\n";
for (let from = 0; from < ROWS; from += ROUND) {
  const n = Math.min(ROUND, ROWS - from);
  const items = Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      url: `https://example.com/bulk/${i}`,
      custom_alias: `bk${i}x`,
      title: `Page ${i}`,
      description: "",
      tags: ["bench", `t${i % 20}`],
    };
  });
  const roundBulk = bulkSeconds;
  const roundImport = importSeconds;
  let started = performance.now();
  let cpu = cpuSeconds();
  const res = await call("/links/bulk", { method: "POST", body: JSON.stringify(items) });
  bulkCreated += ((await res.json()) as { data: { success_count: number } }).data.success_count;
  bulkSeconds += (performance.now() - started) / 1000;
  const b = bulkSeconds - roundBulk;
  const bc = cpuSeconds() - cpu;
  bulkCpu += bc;

  const csv =
    header +
    Array.from({ length: n }, (_, k) => {
      const i = from + k;
      return `Page ${i},https://bit.ly/bt${i}x,,https://example.com/import/${i},"bench,t${i % 20}",2024-03-01 10:00:00,${i % 1000}\n`;
    }).join("");
  bytes += csv.length;
  started = performance.now();
  cpu = cpuSeconds();
  const posted = (await (await call("/imports", { method: "POST", body: csv, type: "text/csv" })).json()) as { data: { id: string } };
  acceptSeconds += (performance.now() - started) / 1000;
  await rt.jobs.imports.runOnce();
  const done = (await (await call(`/imports/${posted.data.id}`)).json()) as { data: { status: string; created: number } };
  importSeconds += (performance.now() - started) / 1000;
  const ic = cpuSeconds() - cpu;
  importCpu += ic;
  importCreated += done.data.created;
  const i = importSeconds - roundImport;
  console.log(
    `  round ${from / ROUND + 1}: bulk ${b.toFixed(1)} s (CPU ${bc.toFixed(1)} s), import ${i.toFixed(1)} s (CPU ${ic.toFixed(1)} s), ratio ${(i / b).toFixed(2)} (CPU ${(ic / bc).toFixed(2)})`,
  );
}

console.log(
  `POST /links/bulk (${Math.ceil(ROWS / ROUND)} batches of ${ROUND.toLocaleString("en")}): ${bulkSeconds.toFixed(1)} s, created ${bulkCreated}`,
);
console.log(
  `POST /imports (${Math.ceil(ROWS / ROUND)} Bitly CSVs, ${(bytes / 1048576).toFixed(1)} MB in all): ${importSeconds.toFixed(1)} s (files received and checked in ${acceptSeconds.toFixed(1)} s), created ${importCreated}`,
);
console.log(
  `ratio import / bulk: ${(importSeconds / bulkSeconds).toFixed(2)} (target ≤ 1.5); CPU time ${importCpu.toFixed(1)} s / ${bulkCpu.toFixed(1)} s = ${(importCpu / bulkCpu).toFixed(2)}`,
);
await rt.close();
rmSync(dataDir, { recursive: true, force: true });
