// `bun run bench scale`: the service on shared stores (a private Postgres 15 server, a redis-server and
// the ClickHouse HTTP stand-in over chDB), first one instance, then two, under the same load (wrk:
// redirects and 100-event journey batches). Prints both runs, then checks in ClickHouse that every
// answered redirect and every accepted event is stored exactly once. A 2-core machine cannot show
// throughput scaling (load generator, instances and stores share the cores), so it also measures the
// per-unit costs the capacity model in docs/scaling.md is built from: CPU of the instance, Postgres,
// ClickHouse and Redis per redirect, per event, per cache miss and per report query, each beside its
// baseline measured in the same run (a bare Bun.serve 302, a bare 202 that reads the batch, ClickHouse
// summing the clicks the report reads, asked directly).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@clickhouse/client";
import { ADMIN_TOKEN, Instance, startStores } from "../scale/stack";
import { BROWSER_UA, startBare, table, wrkAsync, type WrkResult } from "./lib-server";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const BATCH = 100;

delete process.env.SVC_TEST_DATABASE_URL; // a private server, so its CPU is ours to count
const stores = await startStores();
const services = stores.services!;

/** CPU seconds (user + system, all threads) of a set of processes. */
function cpu(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
      total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {}
  }
  return total;
}
type Part = "instances" | "postgres" | "clickhouse" | "redis";
const parts = (instances: Instance[]): Record<Part, () => number[]> => ({
  instances: () => instances.map((i) => i.pid!).filter(Boolean),
  postgres: services.postgres.pids,
  clickhouse: services.clickhouse.pids,
  redis: services.redis.pids,
});
/** CPU used by each part while `fn` runs. */
async function measure<T>(instances: Instance[], fn: () => Promise<T>): Promise<{ result: T; cpu: Record<Part, number> }> {
  const p = parts(instances);
  // Postgres backends are per connection: take the pids after the work too, and count only those present at both ends.
  const before = Object.fromEntries(Object.entries(p).map(([k, pids]) => [k, new Map(pids().map((pid) => [pid, cpu([pid])]))]));
  const result = await fn();
  const used = {} as Record<Part, number>;
  for (const [k, pids] of Object.entries(p) as [Part, () => number[]][]) {
    used[k] = pids().reduce((sum, pid) => sum + cpu([pid]) - (before[k].get(pid) ?? 0), 0);
  }
  return { result, cpu: used };
}

const admin = (instance: Instance, path: string, json: unknown) =>
  fetch(`${instance.url}/admin/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(json),
  }).then((r) => r.json() as Promise<any>);
const metric = async (instance: Instance, re: RegExp) =>
  [...(await fetch(`${instance.url}/metrics`).then((r) => r.text())).matchAll(re)].reduce((s, m) => s + Number(m[1]), 0);
const SERVED = /http_requests_total\{method="GET",route="[^"]*",status="302"\} ([\d.e+]+)/g;
const ACCEPTED = /events_accepted_total\{stream="journey"\} ([\d.e+]+)/g;
const UNFLUSHED = /spool_unflushed_bytes\{spool="\w+"\} ([\d.e+]+)/g;
async function drained(instances: Instance[]) {
  for (const i of instances) while ((await metric(i, UNFLUSHED)) > 0) await Bun.sleep(20);
}
const counted = async (instances: Instance[]) => ({
  served: (await Promise.all(instances.map((i) => metric(i, SERVED)))).reduce((a, b) => a + b, 0),
  accepted: (await Promise.all(instances.map((i) => metric(i, ACCEPTED)))).reduce((a, b) => a + b, 0),
});

const a = new Instance("a", stores, { LOG_LEVEL: "error" });
const b = new Instance("b", stores, { LOG_LEVEL: "error" });
await a.start();
const account = await admin(a, "/accounts", { name: "bench", tier: "scale" });
const key = (
  await admin(a, `/accounts/${account.data.id}/keys`, {
    name: "bench",
    scopes: ["links:read", "links:write", "analytics:read", "journey:write"],
  })
).data.key as string;
const headers = { "x-api-key": key, "content-type": "application/json" };
const link = (
  await fetch(`${a.url}/public-api/v1/links`, {
    method: "POST",
    headers,
    body: JSON.stringify({ url: "https://example.com/landing", title: "Bench", description: "Bench" }),
  }).then((r) => r.json() as Promise<any>)
).data as { id: string; short_code: string };

const dir = mkdtempSync(join(tmpdir(), "svc-bench-scale-"));
const script = join(dir, "post.lua");
const events = Array.from({ length: BATCH }, (_, i) => ({
  link_id: link.id,
  visitor_id: `visitor-${i % 17}`,
  session_id: `session-${i % 23}`,
  event_type: i % 4 === 0 ? "page_view" : "custom",
  event_name: "cta_click",
  page_url: `https://shop.example/products/${i % 9}`,
  properties: { variant: "b" },
}));
writeFileSync(
  script,
  [
    `wrk.method = "POST"`,
    `wrk.body = ${JSON.stringify(JSON.stringify({ events }))}`,
    `wrk.headers["Content-Type"] = "application/json"`,
    `wrk.headers["X-API-Key"] = "${key}"`,
  ].join("\n"),
);
const redirectLoad = (i: Instance, connections: number, seconds: number) =>
  wrkAsync(`${i.url}/${link.short_code}`, { connections, seconds, headers: { "User-Agent": BROWSER_UA } });
const ingestLoad = (i: Instance, connections: number, seconds: number) =>
  wrkAsync(`${i.url}/public-api/v1/journey/events`, { connections, seconds, script });

/** The mixed load (half the connections redirecting, half ingesting) spread evenly over the instances. */
async function mixed(instances: Instance[]) {
  const start = await counted(instances);
  const per = Math.max(1, Math.floor(CONNECTIONS / 2 / instances.length));
  const { result, cpu: used } = await measure(instances, async () => {
    const runs = await Promise.all(instances.flatMap((i) => [redirectLoad(i, per, SECONDS), ingestLoad(i, per, SECONDS)]));
    await drained(instances);
    return runs;
  });
  const end = await counted(instances);
  const redirects = result.filter((_, k) => k % 2 === 0);
  const ingest = result.filter((_, k) => k % 2 === 1);
  const p = (rs: WrkResult[], f: "p50" | "p99") => Math.max(...rs.map((r) => r[f])).toFixed(2);
  return {
    instances: instances.length,
    "redirects/s": Math.round((end.served - start.served) / SECONDS),
    "redirect p50/p99 ms": `${p(redirects, "p50")} / ${p(redirects, "p99")}`,
    "events/s": Math.round((end.accepted - start.accepted) / SECONDS),
    "ingest p50/p99 ms": `${p(ingest, "p50")} / ${p(ingest, "p99")}`,
    "ingest non-202": ingest.reduce((s, r) => s + r.errors, 0),
    "CPU s inst/pg/ch/redis": `${used.instances.toFixed(1)} / ${used.postgres.toFixed(1)} / ${used.clickhouse.toFixed(1)} / ${used.redis.toFixed(1)}`,
  };
}

await Promise.all([redirectLoad(a, 8, 2), ingestLoad(a, 8, 2)]); // warm-up
await drained([a]);
const one = await mixed([a]);
await b.start();
await Promise.all([redirectLoad(b, 8, 2), ingestLoad(b, 8, 2)]);
await drained([a, b]);
const two = await mixed([a, b]);
table([one, two]);

// Per-unit costs, one kind of work at a time on one instance (the other idle), drain included.
const unit = async (what: string, units: () => Promise<number>, fn: () => Promise<unknown>, on = a) => {
  const before = await units();
  const { cpu: used } = await measure([on], async () => {
    await fn();
    await drained([on]);
  });
  const n = (await units()) - before;
  const us = (s: number) => ((s / n) * 1e6).toFixed(1);
  return {
    work: what,
    units: n,
    "instance µs": us(used.instances),
    "postgres µs": us(used.postgres),
    "clickhouse µs": us(used.clickhouse),
    "redis µs": us(used.redis),
  };
};
const served = () => metric(a, SERVED);
const accepted = () => metric(a, ACCEPTED);
const costs = [
  await unit("redirect (cached link)", served, () => redirectLoad(a, 16, 5)),
  await unit("journey event (100-event batches)", accepted, () => ingestLoad(a, 16, 5)),
];
// Cache misses: codes this instance has never seen, each read from Postgres once.
const bulk = await fetch(`${a.url}/public-api/v1/links/bulk`, {
  method: "POST",
  headers,
  body: JSON.stringify(Array.from({ length: 5_000 }, (_, i) => ({ url: `https://example.com/m${i}`, title: "t", description: "d" }))),
}).then((r) => r.json() as Promise<any>);
const codes: string[] = bulk.data.created.map((c: { link: { short_code: string } }) => c.link.short_code);
let missed = 0;
costs.push(
  await unit(
    "redirect (cache miss)",
    async () => missed,
    async () => {
      for (let i = 0; i < codes.length; i += 32) {
        await Promise.all(
          codes.slice(i, i + 32).map((c) => fetch(`${b.url}/${c}`, { redirect: "manual", headers: { "user-agent": BROWSER_UA } })),
        );
        missed += Math.min(32, codes.length - i);
      }
    },
    b, // B has not seen these codes; A's cache holds them since it created them
  ),
);
let queries = 0;
costs.push(
  await unit(
    "report query (analytics summary, 30 days)",
    async () => queries,
    async () => {
      for (; queries < 200; queries++) await fetch(`${a.url}/public-api/v1/analytics/summary`, { headers });
    },
  ),
);
// Baselines in the same run, on the same machine: a bare Bun.serve answering 302 and one reading the
// same batch's body and answering 202 (CPU of the whole process), and ClickHouse summing the account's
// clicks of the last 30 days from the aggregate the report reads, asked directly (no instance).
async function bareCost(what: string, script: string, port: number, path: string, opts: { script?: string; perRequest: number }) {
  const bare = await startBare(script, port);
  const load = { connections: 16, script: opts.script, headers: { "User-Agent": BROWSER_UA } };
  await wrkAsync(`${bare.url}${path}`, { ...load, seconds: 2 }); // warm-up
  const before = cpu([bare.proc.pid]);
  const r = await wrkAsync(`${bare.url}${path}`, { ...load, seconds: 5 });
  const used = cpu([bare.proc.pid]) - before;
  await bare.stop();
  const n = r.requests * opts.perRequest;
  return { work: what, units: n, "instance µs": ((used / n) * 1e6).toFixed(1), "postgres µs": "–", "clickhouse µs": "–", "redis µs": "–" };
}
const direct = createClient({ url: stores.clickhouseUrl });
let sums = 0;
const baselines = [
  await bareCost("baseline: bare Bun.serve 302", "lib-bare-302.ts", 3990, "/x", { perRequest: 1 }),
  await bareCost("baseline: bare Bun.serve 202, body read (per event)", "lib-bare-202.ts", 3991, "/public-api/v1/journey/events", {
    script,
    perRequest: BATCH,
  }),
  await unit(
    "baseline: ClickHouse sum(clicks), 30 days, asked directly",
    async () => sums,
    async () => {
      for (; sums < 200; sums++)
        await direct
          .query({
            query: `SELECT sum(clicks) FROM ${stores.clickhouseDatabase}.clicks_daily WHERE account_id = {account:UUID} AND day >= today() - 29`,
            query_params: { account: account.data.id },
            format: "JSONEachRow",
          })
          .then((r) => r.json());
    },
  ),
];
await direct.close();
table([...costs, ...baselines]);
const cost = (row: Record<string, string | number>, ...parts: string[]) => parts.reduce((sum, p) => sum + Number(row[`${p} µs`]), 0);
console.log(
  `\nours ÷ baseline (instance CPU): redirect ${(cost(costs[0], "instance") / cost(baselines[0], "instance")).toFixed(2)} × a bare 302; ` +
    `journey event ${(cost(costs[1], "instance") / cost(baselines[1], "instance")).toFixed(2)} × a bare 202's per event; ` +
    `report query (instance + ClickHouse) ${(cost(costs[3], "instance", "clickhouse") / cost(baselines[2], "instance", "clickhouse")).toFixed(2)} × ClickHouse's sum asked directly.`,
);

// The capacity model: what N instances (2 cores each) carry with a Postgres server and a ClickHouse
// deployment of the given cores, from the per-unit costs above; the first part to run out is the bottleneck.
const perUnit = (row: Record<string, string | number>, part: string) => Number(row[`${part} µs`]) / 1e6;
const [redirectCost, eventCost, missCost] = costs;
const PG_CORES = Number(process.env.MODEL_PG_CORES ?? 4);
const CH_CORES = Number(process.env.MODEL_CH_CORES ?? 8);
const MISS = Number(process.env.MODEL_MISS_RATE ?? 0.01); // share of redirects whose code is not in the instance's cache
const capacity = (instances: number, kind: "redirects" | "events") => {
  const limits: Record<string, number> =
    kind === "redirects"
      ? {
          instances: (instances * 2) / perUnit(redirectCost, "instance"),
          postgres: PG_CORES / ((1 - MISS) * perUnit(redirectCost, "postgres") + MISS * perUnit(missCost, "postgres")),
          clickhouse: CH_CORES / perUnit(redirectCost, "clickhouse"),
        }
      : {
          instances: (instances * 2) / perUnit(eventCost, "instance"),
          postgres: PG_CORES / perUnit(eventCost, "postgres"),
          clickhouse: CH_CORES / perUnit(eventCost, "clickhouse"),
        };
  const [first, value] = Object.entries(limits).sort((x, y) => x[1] - y[1])[0];
  return `${Math.round(value).toLocaleString("en")} /s (${first})`;
};
console.log(
  `\nCapacity model: instances of 2 cores, Postgres ${PG_CORES} cores, ClickHouse ${CH_CORES} cores, ${MISS * 100}% cache misses`,
);
table([1, 2, 4, 8, 16].map((n) => ({ instances: n, "redirects alone": capacity(n, "redirects"), "events alone": capacity(n, "events") })));

// Exactly once: every answered redirect and every accepted event is one row in ClickHouse.
const totals = await counted([a, b]);
await Promise.all([a.stop(), b.stop()]);
const ch = createClient({ url: stores.clickhouseUrl });
const q = async (sql: string) =>
  Number(Object.values(((await (await ch.query({ query: sql, format: "JSONEachRow" })).json()) as any[])[0])[0]);
const db = stores.clickhouseDatabase;
const clickRows = await q(`SELECT count() FROM ${db}.clicks`);
const clickIds = await q(`SELECT uniqExact(click_id) FROM ${db}.clicks`);
const eventRows = await q(`SELECT count() FROM ${db}.journey_events`);
const eventIds = await q(`SELECT uniqExact(event_id) FROM ${db}.journey_events`);
await ch.close();
await stores.stop();
console.log(
  `\n${CONNECTIONS} connections (half redirecting, half posting ${BATCH}-event batches), ${SECONDS} s per run. ` +
    `Answered ${totals.served} redirects, stored ${clickRows} clicks (${clickIds} distinct); ` +
    `accepted ${totals.accepted} events, stored ${eventRows} (${eventIds} distinct).`,
);
const ok = clickRows === clickIds && eventRows === eventIds && eventRows === totals.accepted && clickRows === totals.served;
if (!ok) {
  console.log("MISMATCH: not every accepted item is stored exactly once");
  process.exit(1);
}
console.log("Every answered redirect and accepted event is stored exactly once.");
