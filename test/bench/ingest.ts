// `bun run bench ingest`: POST /journey/events in 100-event batches against the server as a child
// process on loopback, with wrk (Lua script) for a fixed duration; wrk does not slow down on a 503.
// Prints accepted events/s, p50/p99 latency, the non-202 answers, the time from the end of the load
// until the last accepted event is queryable, the server's peak memory and its CPU per accepted event
// (every thread, over the load and the drain after it). Beside it, measured in the same run: a bare
// Bun.serve that reads the same POST body and answers 202 (same wrk script and connections), and a
// fresh embedded chDB with our tables and views storing as many events' rows through the flusher's own
// sink, from binary spool lines into RowBinary through file() (the raw work); ratios are ours ÷ those. Then it stops the
// server and counts in its ClickHouse that every accepted event is stored exactly once, in the events
// table and in the hourly rollup. Targets: ≥ 100,000 events/s on 2 cores, queryable within 2 s.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuSeconds, startBare, startServer, table, wrk } from "./lib-server";
import { journeyBatch } from "./lib-journey-batch";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const BATCH = 100;
const IDEMPOTENCY = process.env.BENCH_IDEMPOTENCY === "1";

const DATABASE = "bench";
const server = await startServer(Number(process.env.BENCH_PORT ?? 3911), {
  LOG_LEVEL: "error",
  CLICKHOUSE_DATABASE: DATABASE,
  ...(process.env.BENCH_ENV ? JSON.parse(process.env.BENCH_ENV) : {}),
});
const headers = { "x-api-key": server.key, "content-type": "application/json" };
const link = await fetch(`${server.url}/public-api/v1/links`, {
  method: "POST",
  headers,
  body: JSON.stringify({ url: "https://example.com/landing", title: "Bench", description: "Bench" }),
}).then((r) => r.json() as Promise<{ data: { id: string } }>);
const linkId = link.data.id;

const events = journeyBatch(linkId, BATCH);
const body = JSON.stringify({ events });
const bare = await startBare("lib-bare-202.ts", Number(process.env.BENCH_BARE_PORT ?? 3912));

const dir = mkdtempSync(join(tmpdir(), "svc-bench-ingest-"));
const script = join(dir, "post.lua");
writeFileSync(
  script,
  [
    `wrk.method = "POST"`,
    `wrk.body = ${JSON.stringify(body)}`,
    `wrk.headers["Content-Type"] = "application/json"`,
    `wrk.headers["X-API-Key"] = "${server.key}"`,
    // BENCH_IDEMPOTENCY=1: every request carries its own X-Idempotency-Key, as the SDK and the tracker send.
    ...(IDEMPOTENCY
      ? [
          `local run, n = tostring(os.time()) .. "-" .. tostring(os.clock()), 0`,
          `request = function() n = n + 1; wrk.headers["X-Idempotency-Key"] = run .. "-" .. n; return wrk.format() end`,
        ]
      : []),
  ].join("\n"),
);
const target = `${server.url}/public-api/v1/journey/events`;

const metric = async (re: RegExp) => Number(re.exec(await fetch(`${server.url}/metrics`).then((r) => r.text()))?.[1] ?? NaN);
const ACCEPTED = /events_accepted_total\{stream="journey"\} ([\d.e+]+)/;
const UNFLUSHED = /spool_unflushed_bytes\{spool="journey"\} ([\d.e+]+)/;

// Warm-up (JIT, caches), then the baseline: the bare server with the same script and connections.
wrk(`${bare.url}/public-api/v1/journey/events`, { connections: CONNECTIONS, seconds: 2, script });
wrk(target, { connections: CONNECTIONS, seconds: 2, script });
while ((await metric(UNFLUSHED)) > 0) await Bun.sleep(20);
const bareCpuBefore = cpuSeconds(bare.proc.pid);
const b = wrk(`${bare.url}/public-api/v1/journey/events`, { connections: CONNECTIONS, seconds: SECONDS, script });
const bareCpuUs = ((cpuSeconds(bare.proc.pid) - bareCpuBefore) * 1e6) / b.requests;
await bare.stop();
// The bar of the design notes: events/s against a bare Bun.serve 302's req/s (GET, the redirect bench's 64 connections).
const bare302 = await startBare("lib-bare-302.ts", Number(process.env.BENCH_BARE_PORT ?? 3912) + 1);
wrk(`${bare302.url}/x`, { connections: 64, seconds: 2 });
const b302 = wrk(`${bare302.url}/x`, { connections: 64, seconds: SECONDS });
await bare302.stop();

const before = await metric(ACCEPTED);
const cpuBefore = cpuSeconds(server.proc.pid);
const r = wrk(target, { connections: CONNECTIONS, seconds: SECONDS, script });
const loadEnded = performance.now();
const accepted = (await metric(ACCEPTED)) - before;

// Queryable = flushed into ClickHouse; confirmed by counting through the API.
const deadline = loadEnded + 120_000;
while ((await metric(UNFLUSHED)) > 0 && performance.now() < deadline) await Bun.sleep(20);
const flushedAfter = (performance.now() - loadEnded) / 1000;
const cpuUsPerEvent = ((cpuSeconds(server.proc.pid) - cpuBefore) * 1e6) / accepted;
const total = await fetch(`${server.url}/public-api/v1/journey/links/${linkId}/summary?period=24h`, { headers }).then(
  (res) => res.json() as Promise<{ data: { total_events: number } }>,
);
const totalAccepted = await metric(ACCEPTED);
const peakRss = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.proc.pid}/status`, "utf8"))?.[1] ?? NaN) / 1024;
await server.stop({ keepData: true });

// Exactly once: every accepted event (warm-up included) is one row with its own id, and counted once in the rollup.
const { createChdbConnection } = await import("chdb/connection");
const ch = createChdbConnection({ path: join(server.dataDir, "clickhouse") });
const count = async (sql: string) => Number((await ch.chdb.queryAsync(sql, { format: "CSV" })).text().trim());
const rows = await count(`SELECT count() FROM ${DATABASE}.journey_events`);
const ids = await count(`SELECT uniqExact(event_id) FROM ${DATABASE}.journey_events`);
const rollup = await count(`SELECT sum(events) FROM ${DATABASE}.journey_hourly`);
await ch.close();
server.removeData();

// The raw insert, in a process of its own (chDB opens one database path per process), after the server
// stopped so that nothing else of ours shares the cores.
const batchFile = join(dir, "batch.json");
writeFileSync(batchFile, JSON.stringify(events));
const raw = Bun.spawnSync([process.execPath, join(import.meta.dir, "lib-chdb-journey-insert.ts"), String(accepted), batchFile], {
  env: { PATH: process.env.PATH ?? "" },
  stderr: "inherit",
});
if (raw.exitCode !== 0) throw new Error("the raw chDB insert failed");
const insert = JSON.parse(raw.stdout.toString().trim().split("\n").at(-1)!) as { chunks: number; cpuSeconds: number; seconds: number };
const insertCpuUs = (insert.cpuSeconds * 1e6) / accepted;
rmSync(dir, { recursive: true, force: true });

const bareEventCpuUs = bareCpuUs / BATCH;
table([
  {
    server: `POST /journey/events (ours)`,
    "events/s": Math.round(accepted / SECONDS),
    "req/s": Math.round(r.rps),
    "p50 ms": r.p50.toFixed(2),
    "p99 ms": r.p99.toFixed(2),
    "non-202": r.errors,
    "CPU µs/req": (cpuUsPerEvent * BATCH).toFixed(0),
    "CPU µs/event": cpuUsPerEvent.toFixed(2),
  },
  {
    server: "bare Bun.serve 202, body read",
    "events/s": Math.round(b.rps * BATCH),
    "req/s": Math.round(b.rps),
    "p50 ms": b.p50.toFixed(2),
    "p99 ms": b.p99.toFixed(2),
    "non-202": b.errors,
    "CPU µs/req": bareCpuUs.toFixed(0),
    "CPU µs/event": bareEventCpuUs.toFixed(2),
  },
]);
console.log(
  `\nchDB alone, the raw insert of ${accepted} events' rows (${insert.chunks} chunks of binary spool lines, RowBinary through file(), our tables and views): ` +
    `${insertCpuUs.toFixed(2)} µs CPU/event, ${Math.round(accepted / insert.seconds)} events/s on one insert at a time.`,
);
console.log(
  `ours ÷ baseline: events/s ${((accepted / SECONDS / (b.rps * BATCH)) * 100).toFixed(1)}% of the bare server's req/s × ${BATCH}; ` +
    `CPU per event ${(cpuUsPerEvent / (bareEventCpuUs + insertCpuUs)).toFixed(2)} × (bare HTTP ${bareEventCpuUs.toFixed(2)} + chDB insert ${insertCpuUs.toFixed(2)} µs).`,
);
console.log(
  `events/s ÷ a bare Bun.serve 302's req/s (${Math.round(b302.rps)}, 64 connections, same run): ${(accepted / SECONDS / b302.rps).toFixed(2)} (bar 1.5, aim 2).`,
);
console.log(`last event queryable after ${flushedAfter.toFixed(2)} s; server peak RSS ${Math.round(peakRss)} MB.`);
console.log(
  `\n${CONNECTIONS} connections, ${SECONDS}s, ${BATCH}-event batches of ${body.length} bytes` +
    `${IDEMPOTENCY ? ", each with its own X-Idempotency-Key" : ""}. Accepted ${totalAccepted} events ` +
    `(warm-up included); the API counts ${total.data.total_events}; stored ${rows} rows with ${ids} distinct ids, rollup ${rollup}. ` +
    `Targets: ≥ 100,000 events/s, queryable ≤ 2 s.`,
);
if (![total.data.total_events, rows, ids, rollup].every((n) => n === totalAccepted)) {
  console.log("MISMATCH: not every accepted event is stored exactly once");
  process.exit(1);
}
