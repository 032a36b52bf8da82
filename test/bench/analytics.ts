// `bun run bench analytics`: ~10 million synthetic clicks over 90 days for one account (generated in SQL
// into a fresh DATA_DIR's embedded ClickHouse, through the materialized views: people in sessions, with
// the product's daily-salted visitor hashes and the 30-minute carry), then p50/p99 of each analytics
// endpoint and of link stats, timed through the app's HTTP handler in-process, each beside two queries of
// the same run: chDB summing the clicks of the same table and scope (the baseline) and the peer-shaped
// query (count() and uniq(visitor_hash) over the raw clicks of the scope). Bars: p50 ≤ 5× the baseline
// and ≤ ½ the peer query. BENCH_DATA_DIR=<dir> keeps the loaded data there and reuses it on the next
// run (to time two versions of the code alternately on the same data, each with its own directory).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { loadConfig } from "../../server/config";
import { openRuntime } from "../../server/runtime";
import { SCOPES } from "../../server/scopes";
import type { ClickhouseTable } from "../../server/storage/clickhouse/tables";
import { table } from "./lib-server";
import { timeAgainstBaselines } from "./lib-timing";

const CLICKS = Number(process.env.BENCH_CLICKS ?? 10_000_000);
const LINKS = 1000;
const DAYS = 90;
/** People who click (most once, a few often) and the mean clicks of a session (the lengths below). */
const PEOPLE = 3_000_000;
const MEAN_SESSION_CLICKS = 33 / 12;
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const ADMIN = "bench-admin-token-0123456789";

const keep = process.env.BENCH_DATA_DIR;
const dataDir = keep ?? mkdtempSync(join(tmpdir(), "svc-bench-analytics-"));
if (keep) mkdirSync(keep, { recursive: true });
const loadedFile = join(dataDir, "bench-analytics.json");
const loaded = keep && existsSync(loadedFile) ? (JSON.parse(readFileSync(loadedFile, "utf8")) as { key: string; accountId: string }) : null;
const config = loadConfig({
  DATA_DIR: dataDir,
  ADMIN_TOKEN: ADMIN,
  LOG_LEVEL: "silent",
  BASE_URL: "http://127.0.0.1:3000",
  // A shared machine under load can take longer than the default limit over the raw clicks (the peer query).
  ...(process.env.CLICKHOUSE_QUERY_TIMEOUT_MS ? { CLICKHOUSE_QUERY_TIMEOUT_MS: process.env.CLICKHOUSE_QUERY_TIMEOUT_MS } : {}),
});
const runtime = await openRuntime(config);
const { pg, ch } = runtime.deps;
const call = async (path: string, init: RequestInit = {}) => {
  const res = await runtime.app.handle(new Request(`http://127.0.0.1:3000${path}`, init));
  const body = (await res.json()) as { data: any };
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
};
const admin = (path: string, json: unknown) =>
  call(`/admin/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify(json),
  });

/** Creates the account, key and links and loads the clicks; merges the aggregates unless BENCH_UNMERGED. */
async function loadClicks() {
  const account = await admin("/accounts", { name: "bench", tier: "scale" });
  const { key } = await admin(`/accounts/${account.id}/keys`, { name: "bench", scopes: [...SCOPES] });
  await pg.query(sql`
    insert into links (account_id, short_code, original_url, title, description, created_at)
    select ${account.id}, 'bench' || g, 'https://example.com/p/' || g, 'Bench ' || g, '', now() - interval '120 days'
    from generate_series(1, ${LINKS}) g`);
  const linkIds = (await pg.query<{ id: string }>(sql`select id from links where account_id = ${account.id} order by short_code`)).map(
    (r) => r.id,
  );

  // Skewed, realistic-looking dimensions: a few big values and a long tail.
  const COUNTRIES = [
    "US",
    "US",
    "US",
    "DE",
    "DE",
    "GB",
    "GB",
    "FR",
    "IN",
    "IN",
    "BR",
    "JP",
    "CA",
    "AU",
    "NL",
    "ES",
    "IT",
    "SE",
    "PL",
    "MX",
    "KR",
    "TR",
    "ID",
    "XX",
  ];
  const BROWSERS = [
    "Chrome",
    "Chrome",
    "Chrome",
    "Mobile Safari",
    "Mobile Safari",
    "Safari",
    "Firefox",
    "Edge",
    "Samsung Internet",
    "Mobile Chrome",
  ];
  const OSES = ["Windows", "Windows", "Android", "Android", "iOS", "iOS", "macOS", "Linux"];
  const REFERRERS = [
    "direct",
    "direct",
    "direct",
    "www.google.com",
    "www.google.com",
    "t.co",
    "www.facebook.com",
    "www.linkedin.com",
    "news.ycombinator.com",
    "www.reddit.com",
    ...Array.from({ length: 40 }, (_, i) => `blog${i}.example.org`),
  ];

  const CLICK_COLUMNS = [
    ...["click_id", "timestamp", "account_id", "link_id", "domain", "visitor_hash", "is_bot", "bot_kind", "device_type", "browser"],
    ...["browser_version", "os", "os_version", "country_code", "region", "city", "referrer", "referrer_url", "language", "query"],
  ];
  const loadStarted = performance.now();
  const now = Date.now();
  // Sessions as the product sees them: a person (a Zipf-like population: a few come back often, most
  // once) makes a session of 1 to 8 clicks a few minutes apart, on links of skewed popularity (a link on
  // one domain). The visitor hash is the product's: a hash of the person salted by the UTC day, so one
  // person on two days is two visitors, except the 30-minute carry (a click in the first 30 minutes of a
  // day keeps the previous day's hash when the same person clicked in the last 30 minutes before midnight).
  const SESSIONS = Math.round(CLICKS / MEAN_SESSION_CLICKS);
  const CHUNK = 400_000;
  for (let offset = 0; offset < SESSIONS; offset += CHUNK) {
    await ch.command(
      `INSERT INTO ${ch.table("clicks")} (${CLICK_COLUMNS.join(", ")})
       SELECT generateUUIDv4(cityHash64(s, k)) AS click_id,
         fromUnixTimestamp64Milli(t, 'UTC') AS timestamp,
         toUUID({account:String}) AS account_id,
         toUUID({links:Array(String)}[li]) AS link_id,
         if(li % 10 = 0, 'go.example.com', '') AS domain,
         cityHash64(person, intDiv(t, 86400000) - carried, 'salt') AS visitor_hash,
         toUInt8(cityHash64(person, 5) % 13 = 0) AS is_bot,
         if(is_bot = 1, ['preview', 'crawler', 'automation'][1 + person % 3], '') AS bot_kind,
         ['desktop', 'mobile', 'tablet'][1 + (cityHash64(person, 3) % 3)] AS device_type,
         {browsers:Array(String)}[1 + (cityHash64(person, 4) % ${BROWSERS.length})] AS browser,
         '120.0' AS browser_version,
         {oses:Array(String)}[1 + (cityHash64(person, 6) % ${OSES.length})] AS os,
         '' AS os_version,
         {countries:Array(String)}[1 + (cityHash64(person, 7) % ${COUNTRIES.length})] AS country_code,
         '' AS region, '' AS city,
         {referrers:Array(String)}[1 + (cityHash64(s, 8) % ${REFERRERS.length})] AS referrer,
         '' AS referrer_url, 'en' AS language, '' AS query
       FROM (
         SELECT number AS s,
           toUInt64(${PEOPLE} * pow(cityHash64(number, 1) / 18446744073709551615, 2.5)) AS person,
           [1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 8][1 + cityHash64(number, 2) % 12] AS n,
           {now:Int64} - toInt64(cityHash64(number, 9) % ${DAYS * 86_400_000}) AS last,
           arrayCumSum(arrayMap(i -> if(i = 0, 0, toInt64(cityHash64(number, 10, i) % 600000)), range(n))) AS offsets,
           arrayMap(o -> last - offsets[n] + o, offsets) AS times,
           toUInt32(1 + ${LINKS} * pow(cityHash64(number, 11) / 18446744073709551615, 1.5)) AS home
         FROM numbers({offset:UInt64}, {chunk:UInt64})
       )
       ARRAY JOIN times AS t, arrayEnumerate(times) AS k
       -- Where the session goes after its first link: mostly on, sometimes to another.
       ARRAY JOIN [if(k > 1 AND cityHash64(s, k, 12) % 4 = 0, toUInt32(1 + cityHash64(s, k, 13) % ${LINKS}), least(home, ${LINKS}))] AS li
       ARRAY JOIN [toUInt8(t - intDiv(t, 86400000) * 86400000 < 1800000
         AND arrayExists(x -> x >= intDiv(t, 86400000) * 86400000 - 1800000 AND x < intDiv(t, 86400000) * 86400000, times))] AS carried`,
      {
        now,
        account: account.id,
        links: linkIds,
        browsers: BROWSERS,
        oses: OSES,
        countries: COUNTRIES,
        referrers: REFERRERS,
        offset,
        chunk: Math.min(CHUNK, SESSIONS - offset),
      },
    );
  }
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  // Steady state: a live server's background merges keep the aggregates in a few parts; a bulk load
  // leaves dozens, so merge them now rather than time the queries against the merges still running.
  const mergeStarted = performance.now();
  // BENCH_UNMERGED=1 skips this to show the worst case right after a bulk load.
  for (const table of [
    "clicks_daily",
    "clicks_hourly",
    "clicks_daily_links",
    "clicks_daily_geo",
    "clicks_daily_devices",
    "clicks_daily_referrers",
    "clicks_daily_targets",
  ] as const) {
    if (!process.env.BENCH_UNMERGED) await ch.command(`OPTIMIZE TABLE ${ch.table(table)} FINAL`);
  }
  const mergeSeconds = (performance.now() - mergeStarted) / 1000;
  const [{ n }] = await ch.query<{ n: string }>(`SELECT count() AS n FROM ${ch.table("clicks")}`);
  const [shape] = await ch.query<Record<string, string>>(
    `SELECT uniqExact(visitor_hash) AS hashes, uniqExact(toDate(timestamp), visitor_hash) AS visitor_days,
            countIf(toDate(timestamp) != toDate(timestamp - INTERVAL 30 MINUTE) AND visitor_hash IN (
              SELECT visitor_hash FROM ${ch.table("clicks")} WHERE timestamp >= now() - INTERVAL 30 DAY
                AND toDate(timestamp) = toDate(timestamp + INTERVAL 30 MINUTE) - 1 AND toDate(timestamp) != toDate(timestamp + INTERVAL 30 MINUTE))) AS carried
     FROM ${ch.table("clicks")} WHERE timestamp >= now() - INTERVAL 30 DAY`,
  );
  console.log(
    `last 30 days: ${Number(shape.hashes).toLocaleString("en")} distinct visitor hashes, ${Number(shape.visitor_days).toLocaleString("en")} visitor-days, ~${Number(shape.carried).toLocaleString("en")} clicks carrying the previous day's hash`,
  );
  console.log(
    `loaded ${Number(n).toLocaleString("en")} clicks over ${DAYS} days in ${loadSeconds.toFixed(1)} s (${LINKS} links, 1 account); aggregates merged in ${mergeSeconds.toFixed(1)} s`,
  );
  return { key: key as string, accountId: account.id as string };
}

const { key, accountId } = loaded ?? (await loadClicks());
if (keep && !loaded) writeFileSync(loadedFile, JSON.stringify({ key, accountId }));

// The analytics job stores the visitor numbers of closed days (a live server runs it every 5 minutes;
// after a migration or a load it has work to do): one round now, timed.
const jobStarted = performance.now();
await runtime.jobs.analytics.runOnce();
console.log(`analytics job round (closed days' visitor numbers): ${((performance.now() - jobStarted) / 1000).toFixed(1)} s`);

const busiest = (
  await ch.query<{ link_id: string }>(
    `SELECT link_id FROM ${ch.table("clicks_daily_links")} GROUP BY link_id ORDER BY sum(clicks) DESC LIMIT 1`,
  )
)[0].link_id;

if (process.env.BENCH_STOP_AFTER_LOAD) {
  console.log(`account ${accountId} busiest ${busiest}`);
  await runtime.close();
  console.log(`kept ${dataDir}`);
  process.exit(0);
}

// Each endpoint beside two queries timed in the same run, in turn with it:
// - the baseline: chDB summing the clicks of the table and scope the endpoint reads (its aggregate,
//   account, dates, bot filter, domain);
// - the peer query: what a ClickHouse-backed peer runs (Plausible's shape): count() and uniq(visitor_hash)
//   over the raw clicks of the same scope, grouped as the report is, no rollups.
// Bars: p50 within 5× the baseline and at least 2× faster than the peer query.
const today = new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.parse(today) - n * 86_400_000).toISOString().slice(0, 10);
const range = (days: number) => ({ account: accountId, start: daysAgo(days - 1), end: today });
const DAILY = "account_id = {account:UUID} AND day >= {start:Date} AND day <= {end:Date}";
const HOURLY = "account_id = {account:UUID} AND hour >= toDateTime({start:Date}, 'UTC') AND hour < toDateTime({end:Date} + 1, 'UTC')";
const RAW =
  "account_id = {account:UUID} AND timestamp >= toDateTime({start:Date}, 'UTC') AND timestamp < toDateTime({end:Date} + 1, 'UTC')";
const REAL = " AND is_bot = 0"; // the reports' default bot_filter
const sumOf = (table: ClickhouseTable, where: string, params: Record<string, unknown>) => () =>
  ch.query(`SELECT sum(clicks) AS n FROM ${ch.table(table)} WHERE ${where}`, params);
const peer = (where: string, params: Record<string, unknown>, groupBy?: string) => () =>
  ch.query(
    `SELECT ${groupBy ? `${groupBy} AS g, ` : ""}count() AS c, uniq(visitor_hash) AS v FROM ${ch.table("clicks")} WHERE ${where}${groupBy ? " GROUP BY g" : ""}`,
    params,
  );
const accountLink = { account: accountId, link: busiest };
const LINK = "account_id = {account:UUID} AND link_id = {link:UUID}";
const oneDomain = { ...range(90), domain: "go.example.com" };

const cases: [string, string, () => Promise<unknown>, () => Promise<unknown>][] = [
  ["summary (30 days)", "/analytics/summary", sumOf("clicks_daily", DAILY + REAL, range(30)), peer(RAW + REAL, range(30))],
  [
    "timeseries (30 days)",
    "/analytics/timeseries",
    sumOf("clicks_daily", DAILY + REAL, range(30)),
    peer(RAW + REAL, range(30), "toDate(timestamp)"),
  ],
  ["geo (30 days)", "/analytics/geo", sumOf("clicks_daily_geo", DAILY + REAL, range(30)), peer(RAW + REAL, range(30), "country_code")],
  [
    "devices (30 days)",
    "/analytics/devices",
    sumOf("clicks_daily_devices", DAILY + REAL, range(30)),
    peer(RAW + REAL, range(30), "(device_type, browser, os)"),
  ],
  [
    "referrers (30 days)",
    "/analytics/referrers",
    sumOf("clicks_daily_referrers", DAILY + REAL, range(30)),
    peer(RAW + REAL, range(30), "referrer"),
  ],
  [
    "hourly (30 days)",
    "/analytics/hourly",
    sumOf("clicks_hourly", HOURLY + REAL, range(30)),
    peer(RAW + REAL, range(30), "toHour(timestamp)"),
  ],
  [
    "summary (90 days, all traffic)",
    "/analytics/summary?days=90&bot_filter=all",
    sumOf("clicks_daily", DAILY, range(90)),
    peer(RAW, range(90)),
  ],
  [
    "timeseries (90 days, one domain)",
    "/analytics/timeseries?days=90&domain_name=go.example.com",
    sumOf("clicks_daily", `${DAILY + REAL} AND domain = {domain:String}`, oneDomain),
    peer(`${RAW + REAL} AND domain = {domain:String}`, oneDomain, "toDate(timestamp)"),
  ],
  [
    "geo (90 days)",
    "/analytics/geo?days=90",
    sumOf("clicks_daily_geo", DAILY + REAL, range(90)),
    peer(RAW + REAL, range(90), "country_code"),
  ],
  [
    "link stats (busiest link)",
    `/links/${busiest}/stats`,
    sumOf("clicks_daily_links", LINK, accountLink),
    () => ch.query(`SELECT count() AS c, uniqIf(visitor_hash, is_bot = 0) AS v FROM ${ch.table("clicks")} WHERE ${LINK}`, accountLink),
  ],
  [
    "summary (30 days, one link)",
    `/analytics/summary?link_id=${busiest}`,
    sumOf("clicks_daily_links", `${DAILY + REAL} AND link_id = {link:UUID}`, { ...range(30), link: busiest }),
    peer(`${RAW + REAL} AND link_id = {link:UUID}`, { ...range(30), link: busiest }),
  ],
];

const rows: Record<string, string | number>[] = [];
for (const [name, path, baseline, peerQuery] of cases) {
  const headers = { "x-api-key": key };
  const t = await timeAgainstBaselines(RUNS, () => call(`/public-api/v1${path}`, { headers }), [baseline, peerQuery]);
  const [base, peerP50] = t.baselineP50s;
  const withinBase = t.p50 <= 5 * base;
  const underPeer = t.p50 * 2 <= peerP50;
  rows.push({
    endpoint: name,
    "p50 ms": t.p50.toFixed(1),
    "p99 ms": t.p99.toFixed(1),
    "baseline p50": base.toFixed(1),
    "÷ baseline": (t.p50 / base).toFixed(1),
    "peer p50": peerP50.toFixed(1),
    "÷ peer": (t.p50 / peerP50).toFixed(2),
    "CPU ms/call": t.cpuPerCall.toFixed(1),
    load: loadavg()[0].toFixed(1),
    "≤5× base": withinBase ? "pass" : "MISS",
    "≤½ peer": underPeer ? "pass" : "MISS",
  });
}
table(rows);
console.log(
  `\n${RUNS} runs each, the endpoint and its two comparisons called in turn. Baseline: chDB's sum(clicks) over the ` +
    "aggregate and scope the endpoint reads (link stats: the link's rows). Peer: count() and uniq(visitor_hash) over " +
    "the raw clicks of the scope, grouped as the report is. CPU: this process's (server and chDB) user+system time " +
    "per endpoint call. load: the 1-minute load average when the row was measured.",
);

await runtime.close();
if (process.env.BENCH_KEEP || keep) console.log(`kept ${dataDir} (database ${config.clickhouse.database})`);
else rmSync(dataDir, { recursive: true, force: true });
if (rows.some((r) => r["≤5× base"] === "MISS" || r["≤½ peer"] === "MISS")) process.exit(1);
