// `bun run bench journey`: 10 million journey events (one account, one link, 90 days, 1M visitors,
// 2M sessions of 5 events) loaded with INSERT … SELECT FROM numbers(), then p50/p99 of the journey summary and
// funnel and of every conversion report, called through the app in-process (real stores).
// Target: p50 < 150 ms. BENCH_DATA_DIR=<dir> keeps the loaded data there and reuses it on the next run
// (to time two versions of the code alternately on the same data, each with its own directory).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../server/config";
import { openRuntime } from "../../server/runtime";
import { links } from "../../server/storage/postgres/schema";
import { table } from "./lib-server";
import type { ClickhouseTable } from "../../server/storage/clickhouse/tables";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const ADMIN = "bench-admin-token-0123456789";

const keep = process.env.BENCH_DATA_DIR;
const dataDir = keep ?? mkdtempSync(join(tmpdir(), "svc-bench-journey-"));
const loadedFile = join(dataDir, "bench-journey.json");
const loaded = keep && existsSync(loadedFile) ? (JSON.parse(readFileSync(loadedFile, "utf8")) as { key: string; linkId: string }) : null;
if (keep) mkdirSync(keep, { recursive: true });
const runtime = await openRuntime(loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: "error" }));
const { ch, pg } = runtime.deps;
const call = async (path: string, init: RequestInit & { json?: unknown } = {}, headers: Record<string, string> = {}) => {
  const res = await runtime.app.handle(
    new Request(`http://127.0.0.1:3000${path}`, {
      ...init,
      headers: { "content-type": "application/json", ...headers },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    }),
  );
  return { status: res.status, body: (await res.json()) as any };
};
const admin = { authorization: `Bearer ${ADMIN}` };
/** Creates the account, key and link and loads the events; merges every table unless BENCH_UNMERGED. */
async function loadEvents() {
  const account = (await call("/admin/v1/accounts", { method: "POST", json: { name: "bench", tier: "scale" } }, admin)).body.data;
  const key = (
    await call(
      `/admin/v1/accounts/${account.id}/keys`,
      {
        method: "POST",
        json: { name: "bench", scopes: ["journey:read", "conversions:read"] },
      },
      admin,
    )
  ).body.data.key;
  const [{ id: linkId }] = await pg.db
    .insert(links)
    .values({ accountId: account.id, shortCode: "bench", originalUrl: "https://example.com/" })
    .returning();

  const loadStarted = performance.now();
  // Realistic shape: 2M sessions of 5 events 45 s apart, started at random over 90 days, by 1M visitors
  // (about 2 sessions each); page views, scrolls, timers, custom events (add_to_cart, signup), ~4% conversions.
  await ch.command(
    `
    INSERT INTO ${ch.table("journey_events")}
    SELECT
      generateUUIDv4(number) AS event_id, ts AS received_at, ts AS timestamp,
      toUUID({account:String}) AS account_id, toUUID({link:String}) AS link_id,
      concat('v', toString(cityHash64(s, 1) % 1000000)) AS visitor_id,
      concat('s', toString(s)) AS session_id,
      multiIf(j = 0 OR k < 40, 'page_view', k < 55, 'scroll_depth', k < 70, 'time_on_page', k < 95, 'custom', 'conversion') AS event_type,
      multiIf(event_type = 'conversion', 'purchase', event_type = 'custom', if(k < 85, 'add_to_cart', 'signup'), '') AS event_name,
      concat('https://shop.example/p/', toString(cityHash64(number, 2) % 50)) AS page_url,
      'Page' AS page_title,
      if(event_type = 'scroll_depth', toFloat32(cityHash64(number, 3) % 101), NULL) AS scroll_percent,
      if(event_type = 'time_on_page', toFloat64(cityHash64(number, 4) % 600), NULL) AS time_on_page,
      if(event_type = 'conversion', 'order', '') AS conversion_name,
      if(event_type = 'conversion', toInt64(cityHash64(number, 5) % 20000), 0) AS revenue_cents,
      if(event_type = 'conversion', 'USD', '') AS currency,
      ['US', 'DE', 'FR', 'GB', 'IN', 'BR'][1 + cityHash64(s, 6) % 6] AS country_code,
      '' AS city, '' AS region,
      ['mobile', 'desktop', 'tablet'][1 + cityHash64(s, 7) % 3] AS device_type,
      'Chrome' AS browser, '126' AS browser_version, 'Android' AS os, '14' AS os_version,
      '{}' AS properties${(await hasRevenueColumn()) ? ", toUInt8(event_type = 'conversion') AS has_revenue" : ""}
    FROM (
      SELECT number, intDiv(number, 5) AS s, number % 5 AS j, cityHash64(number, 0) % 100 AS k,
        now64(3) - toIntervalMillisecond(cityHash64(s, 8) % (90 * 86400000)) + toIntervalSecond(j * 45) AS ts
      FROM numbers({n:UInt64})
    )`,
    { account: account.id, link: linkId, n: EVENTS },
  );
  const loadSeconds = (performance.now() - loadStarted) / 1000;

  // Steady state, as in the analytics bench: a live server's background merges keep the tables in a
  // few parts, while a bulk load leaves dozens and then merges 10M raw events in the background while
  // the queries run (p50s moved by ±20% from run to run), so merge everything now.
  // BENCH_UNMERGED=1 skips this to show the worst case right after a bulk load.
  const mergeStarted = performance.now();
  if (!process.env.BENCH_UNMERGED) {
    const tables = await ch.query<{ name: ClickhouseTable }>(
      "SELECT name FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree'",
      { db: ch.database },
    );
    for (const { name } of tables) await ch.command(`OPTIMIZE TABLE ${ch.table(name)} FINAL`);
    // Until no merge has run for two seconds (one merge often follows another), at most five minutes.
    for (let idle = 0, i = 0; idle < 4 && i < 600; i++) {
      const [{ n }] = await ch.query<{ n: string }>("SELECT count() AS n FROM system.merges WHERE database = {db:String}", {
        db: ch.database,
      });
      idle = Number(n) === 0 ? idle + 1 : 0;
      await Bun.sleep(500);
    }
  }
  const mergeSeconds = (performance.now() - mergeStarted) / 1000;
  return { key, linkId, loadSeconds, mergeSeconds };
}

// journey_events gained has_revenue (migration 0210); the same script loads older versions too.
const hasRevenueColumn = async () =>
  (
    await ch.query("SELECT 1 FROM system.columns WHERE database = {db:String} AND table = 'journey_events' AND name = 'has_revenue'", {
      db: ch.database,
    })
  ).length > 0;

const { key, linkId, loadSeconds, mergeSeconds } = loaded ? { ...loaded, loadSeconds: 0, mergeSeconds: 0 } : await loadEvents();
if (keep && !loaded) writeFileSync(loadedFile, JSON.stringify({ key, linkId }));
const [{ c }] = await ch.query<{ c: string }>(`SELECT count() AS c FROM ${ch.table("journey_events")}`);

const QUERIES: [string, string][] = [
  ["journey summary (30d)", `/public-api/v1/journey/links/${linkId}/summary`],
  ["journey summary (90d)", `/public-api/v1/journey/links/${linkId}/summary?period=90d`],
  ["journey funnel (3 steps, 30d)", `/public-api/v1/journey/links/${linkId}/funnel?steps=page_view,add_to_cart,purchase`],
  ["journey sessions page 1", `/public-api/v1/journey/links/${linkId}/sessions?period=7d`],
  ["journey events page 1", `/public-api/v1/journey/links/${linkId}/events?period=7d`],
  ["conversions summary", "/public-api/v1/conversions/summary"],
  ["conversions timeseries (day)", "/public-api/v1/conversions/timeseries"],
  ["conversions breakdown (device)", "/public-api/v1/conversions/breakdown?dimension=device"],
  ["conversions time-to-convert", "/public-api/v1/conversions/time-to-convert"],
];

const rows = [];
for (const [name, path] of QUERIES) {
  const times: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const t0 = performance.now();
    const res = await call(path, {}, { "x-api-key": key });
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${JSON.stringify(res.body)}`);
    if (i >= 2) times.push(performance.now() - t0); // two warm-up calls
  }
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))].toFixed(1);
  rows.push({ query: name, "p50 ms": pct(50), "p99 ms": pct(99) });
}
table(rows);
console.log(
  `\n${Number(c).toLocaleString("en-US")} journey events ${loaded ? `reused from ${dataDir}` : `loaded in ${loadSeconds.toFixed(1)} s`} (chDB ${ch.kind}), ${process.env.BENCH_UNMERGED ? "not merged" : `merged in ${mergeSeconds.toFixed(1)} s`}; ${RUNS} runs per query. Target: p50 < 150 ms.`,
);
await runtime.close();
if (!keep) rmSync(dataDir, { recursive: true, force: true });
