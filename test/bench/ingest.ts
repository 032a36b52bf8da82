// `bun run bench ingest`: POST /journey/events in 100-event batches against the server as a child
// process on loopback, with wrk (Lua script) for a fixed duration; wrk does not slow down on a 503.
// Prints accepted events/s, p50/p99 latency, the non-202 answers, the time from the end of the load
// until the last accepted event is queryable, and the server's peak memory. Then it stops the server
// and counts in its ClickHouse that every accepted event is stored exactly once, in the events table
// and in the hourly rollup. Targets (DESIGN.md): ≥ 100,000 events/s on 2 cores, queryable within 2 s.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, table, wrk } from "./lib-server";

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

// A realistic batch: a few visitors' page views, scrolls and timers with the fields the tracker sends.
const TYPES = ["page_view", "scroll_depth", "time_on_page", "custom"] as const;
const events = Array.from({ length: BATCH }, (_, i) => ({
  link_id: linkId,
  visitor_id: `visitor-${i % 17}`,
  session_id: `session-${i % 23}`,
  event_type: TYPES[i % 4],
  ...(i % 4 === 3 ? { event_name: "cta_click" } : {}),
  page_url: `https://shop.example/products/${i % 9}`,
  page_title: "Product page",
  ...(i % 4 === 1 ? { scroll_percent: 75 } : {}),
  ...(i % 4 === 2 ? { time_on_page: 31.5 } : {}),
  country_code: "DE",
  device_type: "mobile",
  browser: "Chrome",
  os: "Android",
  properties: { variant: "b", position: i },
}));
const body = JSON.stringify({ events });

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

wrk(target, { connections: CONNECTIONS, seconds: 2, script }); // warm-up (JIT, caches)
const before = await metric(ACCEPTED);
const r = wrk(target, { connections: CONNECTIONS, seconds: SECONDS, script });
const loadEnded = performance.now();
const accepted = (await metric(ACCEPTED)) - before;

// Queryable = flushed into ClickHouse; confirmed by counting through the API.
const deadline = loadEnded + 120_000;
while ((await metric(UNFLUSHED)) > 0 && performance.now() < deadline) await Bun.sleep(20);
const flushedAfter = (performance.now() - loadEnded) / 1000;
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
rmSync(dir, { recursive: true, force: true });

table([
  {
    "events/s accepted": Math.round(accepted / SECONDS),
    "req/s": Math.round(r.rps),
    "p50 ms": r.p50.toFixed(2),
    "p99 ms": r.p99.toFixed(2),
    "non-202": r.errors,
    "queryable after s": flushedAfter.toFixed(2),
    "peak RSS MB": Math.round(peakRss),
  },
]);
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
