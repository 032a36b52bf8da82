// `bun run bench ingest-costs`: where the server's CPU per accepted journey event goes, piece by piece
// (the ingest bench gives the total). (1) Our code on the request path, in this process: parsing the
// 100-event body as the input guard does, validation, the rows, the spool line. (2) The whole request
// path in our server as a child process with its flusher paused (SPOOL_FLUSH_MS), 16 requests at a
// time: HTTP, auth, those pieces, the spool's write and fsync; less its idle CPU over the same time.
// (3) The ClickHouse side in a process of its own (lib-chdb-journey-costs.ts): the fixed CPU of one
// insert (one-row inserts) and the CPU per further event in a full 16 MB chunk, with our views and
// with journey_events alone, and each view's share of the fixed cost.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseJsonBody } from "../../server/http/json-body";
import { toJourneyRow } from "../../server/ingest/journey/rows";
import { journeyBinaryLine } from "../../server/ingest/journey/row-binary";
import { validateIngestBody } from "../../server/journey/validate";
import { chTime } from "../../server/storage/clickhouse/format";
import { cpuSeconds, startServer, table } from "./lib-server";
import { journeyBatch } from "./lib-journey-batch";

const BATCH = 100;
const REQUESTS = 320; // ~32,000 events, well under the 16 MB the admission always allows unflushed
const CONCURRENCY = 16;
const CHUNK_ROWS = 46_000; // what one 16 MB chunk of these events holds (server/ingest/journey/sink.ts)

const server = await startServer(Number(process.env.BENCH_PORT ?? 3931), {
  LOG_LEVEL: "error",
  CLICKHOUSE_DATABASE: "bench",
  SPOOL_FLUSH_MS: "3600000",
});
const headers = { "x-api-key": server.key, "content-type": "application/json" };
const link = await fetch(`${server.url}/public-api/v1/links`, {
  method: "POST",
  headers,
  body: JSON.stringify({ url: "https://example.com/landing" }),
}).then((r) => r.json() as Promise<{ data: { id: string } }>);

// The ingest bench's batch.
const events = journeyBatch(link.data.id, BATCH);
const body = JSON.stringify({ events });

// (1) Our code's pieces, CPU µs per event (this process; medians of 5 rounds).
function perEvent(fn: () => unknown, rounds = 5, n = 400): number {
  for (let i = 0; i < 100; i++) fn();
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) fn();
    const used = process.cpuUsage(before);
    times.push((used.user + used.system) / n / BATCH);
  }
  return times.sort((a, b) => a - b)[Math.floor(rounds / 2)];
}
const accountId = crypto.randomUUID();
const parsed = () => validateIngestBody(parseJsonBody(body), null, Date.now()).events;
const valid = parsed();
const toRows = () => {
  const now = Date.now();
  const received = chTime(now);
  return valid.map((e) => toJourneyRow(crypto.randomUUID(), now, received, accountId, e));
};
const rows = toRows();
const pieces = {
  parse: perEvent(() => parseJsonBody(body)),
  validate: perEvent(() => validateIngestBody(JSON.parse(body), null, Date.now())) - perEvent(() => JSON.parse(body)),
  rows: perEvent(toRows),
  line: perEvent(() => journeyBinaryLine(rows)),
};

// (2) The request path in the server, the flusher paused.
const post = async () => {
  const res = await fetch(`${server.url}/public-api/v1/journey/events`, { method: "POST", headers, body });
  await res.arrayBuffer();
  if (res.status !== 202) throw new Error(`POST /journey/events answered ${res.status}`);
};
for (let i = 0; i < 20; i++) await post();
await Bun.sleep(500);
const idleBefore = cpuSeconds(server.proc.pid);
const idleStarted = performance.now();
await Bun.sleep(2000);
const idleCpuPerSecond = (cpuSeconds(server.proc.pid) - idleBefore) / ((performance.now() - idleStarted) / 1000);
const cpuBefore = cpuSeconds(server.proc.pid);
const started = performance.now();
for (let i = 0; i < REQUESTS / CONCURRENCY; i++) await Promise.all(Array.from({ length: CONCURRENCY }, post));
const seconds = (performance.now() - started) / 1000;
const requestCpuUs = ((cpuSeconds(server.proc.pid) - cpuBefore - idleCpuPerSecond * seconds) * 1e6) / (REQUESTS * BATCH);
await server.stop();

// (3) ClickHouse, in a process of its own (chDB opens one database path per process).
const dir = mkdtempSync(join(tmpdir(), "svc-bench-ingest-costs-"));
const batchFile = join(dir, "batch.json");
writeFileSync(batchFile, JSON.stringify(events));
const ch = Bun.spawnSync([process.execPath, join(import.meta.dir, "lib-chdb-journey-costs.ts"), String(CHUNK_ROWS), batchFile], {
  env: { PATH: process.env.PATH ?? "" },
  stderr: "inherit",
});
rmSync(dir, { recursive: true, force: true });
if (ch.exitCode !== 0) throw new Error("the chDB costs failed");
interface Side {
  fixedMs: number;
  fixedSystemMs: number;
  chunkUsPerEvent: number;
  perEventUs: number;
}
const costs = JSON.parse(ch.stdout.toString().trim().split("\n").at(-1)!) as {
  withViews: Side;
  tableAlone: Side;
  viewFixedMs: Record<string, number>;
};

const us = (x: number) => x.toFixed(2);
table([
  { piece: "our code: parse + input guard", "CPU µs/event": us(pieces.parse) },
  { piece: "our code: validation", "CPU µs/event": us(pieces.validate) },
  { piece: "our code: rows", "CPU µs/event": us(pieces.rows) },
  { piece: "our code: spool line", "CPU µs/event": us(pieces.line) },
  { piece: `request path in the server (flusher paused, ${CONCURRENCY} at a time)`, "CPU µs/event": us(requestCpuUs) },
  { piece: `chDB insert, ${CHUNK_ROWS}-row chunk, tables and views`, "CPU µs/event": us(costs.withViews.chunkUsPerEvent) },
  { piece: "… of which the fixed cost of the insert", "CPU µs/event": us((costs.withViews.fixedMs * 1000) / CHUNK_ROWS) },
  { piece: `chDB insert, ${CHUNK_ROWS}-row chunk, journey_events alone`, "CPU µs/event": us(costs.tableAlone.chunkUsPerEvent) },
  { piece: "… of which the fixed cost of the insert", "CPU µs/event": us((costs.tableAlone.fixedMs * 1000) / CHUNK_ROWS) },
]);
console.log(
  `\nOne insert's fixed CPU: ${costs.withViews.fixedMs.toFixed(1)} ms with the views (${costs.withViews.fixedSystemMs.toFixed(1)} ms of it in the kernel), ` +
    `${costs.tableAlone.fixedMs.toFixed(1)} ms for journey_events alone (${costs.tableAlone.fixedSystemMs.toFixed(1)} ms kernel); ` +
    `per further event ${us(costs.withViews.perEventUs)} µs with the views, ${us(costs.tableAlone.perEventUs)} µs alone.`,
);
console.log(
  `Each view's share of the fixed cost (one-row insert with it less without it), ms: ${Object.entries(costs.viewFixedMs)
    .map(([name, ms]) => `${name.replace(/^journey_|_mv$/g, "")} ${ms.toFixed(1)}`)
    .join(", ")}.`,
);
console.log(`Server idle CPU ${(idleCpuPerSecond * 1000).toFixed(0)} ms/s (background jobs), taken off the request path's figure.`);
