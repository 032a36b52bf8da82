// `bun run bench analytics`: 10 million synthetic clicks over 90 days for one account (generated in
// SQL into a fresh DATA_DIR's embedded ClickHouse, through the materialized views), then p50/p99 of
// each analytics endpoint and of link stats, timed through the app's HTTP handler in-process, each beside
// a baseline in the same run (chDB summing the clicks of the same table and scope), and the exact
// visitor count alone beside the same baseline. Target: p50 < 150 ms each. BENCH_DATA_DIR=<dir> keeps the loaded data there and reuses it on the
// next run (to time two versions of the code alternately on the same data, each with its own directory).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { loadConfig } from "../../server/config";
import { openRuntime } from "../../server/runtime";
import { SCOPES } from "../../server/scopes";
import type { ClickhouseTable } from "../../server/storage/clickhouse/tables";
import { table } from "./lib-server";
import { timeAgainstBaseline, timingColumns } from "./lib-timing";

const CLICKS = Number(process.env.BENCH_CLICKS ?? 10_000_000);
const LINKS = 1000;
const DAYS = 90;
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const ADMIN = "bench-admin-token-0123456789";

const keep = process.env.BENCH_DATA_DIR;
const dataDir = keep ?? mkdtempSync(join(tmpdir(), "svc-bench-analytics-"));
if (keep) mkdirSync(keep, { recursive: true });
const loadedFile = join(dataDir, "bench-analytics.json");
const loaded = keep && existsSync(loadedFile) ? (JSON.parse(readFileSync(loadedFile, "utf8")) as { key: string; accountId: string }) : null;
const config = loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: "silent", BASE_URL: "http://127.0.0.1:3000" });
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
  const CHUNK = 1_000_000;
  for (let offset = 0; offset < CLICKS; offset += CHUNK) {
    await ch.command(
      `INSERT INTO ${ch.table("clicks")} (${CLICK_COLUMNS.join(", ")})
       SELECT generateUUIDv4(number) AS click_id,
         fromUnixTimestamp64Milli(toInt64({now:Int64} - (cityHash64(number, 1) % ${DAYS * 86_400_000})), 'UTC') AS timestamp,
         toUUID({account:String}) AS account_id,
         toUUID({links:Array(String)}[1 + (cityHash64(number, 2) % ${LINKS})]) AS link_id,
         if(number % 10 = 0, 'go.example.com', '') AS domain,
         cityHash64(number % 2000000) AS visitor_hash,
         toUInt8(number % 13 = 0) AS is_bot,
         multiIf(number % 13 != 0, '', number % 3 = 0, 'preview', number % 3 = 1, 'crawler', 'automation') AS bot_kind,
         ['desktop', 'mobile', 'tablet'][1 + (cityHash64(number, 3) % 3)] AS device_type,
         {browsers:Array(String)}[1 + (cityHash64(number, 4) % ${BROWSERS.length})] AS browser,
         '120.0' AS browser_version,
         {oses:Array(String)}[1 + (cityHash64(number, 5) % ${OSES.length})] AS os,
         '' AS os_version,
         {countries:Array(String)}[1 + (cityHash64(number, 6) % ${COUNTRIES.length})] AS country_code,
         '' AS region, '' AS city,
         {referrers:Array(String)}[1 + (cityHash64(number, 7) % ${REFERRERS.length})] AS referrer,
         '' AS referrer_url, 'en' AS language, '' AS query
       FROM numbers({offset:UInt64}, {chunk:UInt64})`,
      {
        now,
        account: account.id,
        links: linkIds,
        browsers: BROWSERS,
        oses: OSES,
        countries: COUNTRIES,
        referrers: REFERRERS,
        offset,
        chunk: Math.min(CHUNK, CLICKS - offset),
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
  console.log(
    `loaded ${Number(n).toLocaleString("en")} clicks over ${DAYS} days in ${loadSeconds.toFixed(1)} s (${LINKS} links, 1 account); aggregates merged in ${mergeSeconds.toFixed(1)} s`,
  );
  return { key: key as string, accountId: account.id as string };
}

const { key, accountId } = loaded ?? (await loadClicks());
if (keep && !loaded) writeFileSync(loadedFile, JSON.stringify({ key, accountId }));

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

// Each endpoint beside chDB doing the raw work in the same run: the clicks summed over the table and
// scope the endpoint reads (its aggregate, account, dates, bot filter, domain), timed the same way.
const today = new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.parse(today) - n * 86_400_000).toISOString().slice(0, 10);
const range = (days: number) => ({ account: accountId, start: daysAgo(days - 1), end: today });
const DAILY = "account_id = {account:UUID} AND day >= {start:Date} AND day <= {end:Date}";
const HOURLY = "account_id = {account:UUID} AND hour >= toDateTime({start:Date}, 'UTC') AND hour < toDateTime({end:Date} + 1, 'UTC')";
const REAL = " AND is_bot = 0"; // the reports' default bot_filter
const sumOf = (table: ClickhouseTable, where: string, params: Record<string, unknown>) => () =>
  ch.query(`SELECT sum(clicks) AS n FROM ${ch.table(table)} WHERE ${where}`, params);
const accountLink = { account: accountId, link: busiest };

const cases: [string, string, () => Promise<unknown>][] = [
  ["summary (30 days)", "/analytics/summary", sumOf("clicks_daily", DAILY + REAL, range(30))],
  ["timeseries (30 days)", "/analytics/timeseries", sumOf("clicks_daily", DAILY + REAL, range(30))],
  ["geo (30 days)", "/analytics/geo", sumOf("clicks_daily_geo", DAILY + REAL, range(30))],
  ["devices (30 days)", "/analytics/devices", sumOf("clicks_daily_devices", DAILY + REAL, range(30))],
  ["referrers (30 days)", "/analytics/referrers", sumOf("clicks_daily_referrers", DAILY + REAL, range(30))],
  ["hourly (30 days)", "/analytics/hourly", sumOf("clicks_hourly", HOURLY + REAL, range(30))],
  ["summary (90 days, all traffic)", "/analytics/summary?days=90&bot_filter=all", sumOf("clicks_daily", DAILY, range(90))],
  [
    "timeseries (90 days, one domain)",
    "/analytics/timeseries?days=90&domain_name=go.example.com",
    sumOf("clicks_daily", `${DAILY + REAL} AND domain = {domain:String}`, { ...range(90), domain: "go.example.com" }),
  ],
  ["geo (90 days)", "/analytics/geo?days=90", sumOf("clicks_daily_geo", DAILY + REAL, range(90))],
  [
    "link stats (busiest link)",
    `/links/${busiest}/stats`,
    sumOf("clicks_daily_links", "account_id = {account:UUID} AND link_id = {link:UUID}", accountLink),
  ],
];

const rows: Record<string, string | number>[] = [];
for (const [name, path, baseline] of cases) {
  const headers = { "x-api-key": key };
  const t = await timeAgainstBaseline(RUNS, () => call(`/public-api/v1${path}`, { headers }), baseline);
  rows.push({ endpoint: name, ...timingColumns(t), target: t.p50 < 150 ? "ok (< 150)" : "MISSED" });
}
// What the exact visitor count costs by itself: the summary's visitor merge over the 30-day account scope.
const visitorCount = await timeAgainstBaseline(
  RUNS,
  () => ch.query(`SELECT uniqExactMerge(visitor_set) AS n FROM ${ch.table("clicks_daily")} WHERE ${DAILY + REAL}`, range(30)),
  sumOf("clicks_daily", DAILY + REAL, range(30)),
);
rows.push({ endpoint: "visitor count alone (30 days, SQL)", ...timingColumns(visitorCount), target: "" });
table(rows);
console.log(
  `\n${RUNS} runs each; baseline: chDB's sum(clicks) over the same aggregate and scope (link stats: the link's rows), ` +
    "called in turn with the endpoint through the same client. The last row is the exact visitor count alone " +
    "(uniqExactMerge(visitor_set) over clicks_daily, 30 days, the account's real traffic).",
);

await runtime.close();
if (process.env.BENCH_KEEP || keep) console.log(`kept ${dataDir} (database ${config.clickhouse.database})`);
else rmSync(dataDir, { recursive: true, force: true });
if (rows.some((r) => r.target === "MISSED")) process.exit(1);
