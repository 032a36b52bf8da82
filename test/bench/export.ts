// `bun run bench export`: a raw clicks export over HTTP beside ClickHouse formatting the same rows.
// BENCH_ROWS (default 1,000,000) clicks over 30 days of one account with 1,000 links, generated in SQL
// into a fresh DATA_DIR's embedded ClickHouse. Each round times, alternately, (a) the baseline: chDB
// running the export's own SELECT (same columns, filter and order) in one query FORMAT CSV, the whole
// result read into memory, and (b) GET /exports/clicks of the same range over loopback HTTP from our
// server, read to the end by curl (a separate process). The bar: (b) streams at least half the rows
// per second of (a), same-run medians. Also printed: (a) without its ORDER BY (storage order, the
// cheapest CSV ClickHouse makes of these rows). The load average is printed with every round.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { loadConfig } from "../../server/config";
import { openRuntime } from "../../server/runtime";
import { serveApp } from "../../server/serve";
import { SCOPES } from "../../server/scopes";
import { chunkQuery, type ExportScope } from "../../server/exports/queries";
import { findLinkCodes } from "../../server/links/read";

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DAYS = 30;
const ADMIN = "bench-admin-token-0123456789";
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ");

const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-export-"));
const config = loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: "silent", BASE_URL: "http://127.0.0.1:3000" });
const runtime = await openRuntime(config, { jobs: false });
const { pg, ch } = runtime.deps;
const admin = async (path: string, json: unknown) => {
  const res = await runtime.app.handle(
    new Request(`http://127.0.0.1:3000/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify(json),
    }),
  );
  return ((await res.json()) as { data: any }).data;
};

const account = await admin("/accounts", { name: "bench", tier: "scale" });
const { key } = await admin(`/accounts/${account.id}/keys`, { name: "bench", scopes: [...SCOPES] });
await pg.query(sql`
  insert into links (account_id, short_code, original_url)
  select ${account.id}, 'bench' || g, 'https://example.com/p/' || g from generate_series(1, 1000) g`);
const linkIds = (await pg.query<{ id: string }>(sql`select id from links where account_id = ${account.id}`)).map((r) => r.id);
const now = Date.now();
const from = now - DAYS * 86_400_000;
const t0 = performance.now();
await ch.command(
  `INSERT INTO ${ch.table("clicks")} (click_id, timestamp, account_id, link_id, domain, visitor_hash, is_bot, bot_kind, device_type,
     browser, browser_version, os, os_version, country_code, region, city, referrer, referrer_url, language, query)
   SELECT generateUUIDv4(number), fromUnixTimestamp64Milli(toInt64({from:Int64} + intDiv(number * {span:UInt64}, {rows:UInt64}))),
     {account:UUID}, {links:Array(UUID)}[1 + number % 1000], '', cityHash64(number), number % 12 = 0,
     if(number % 12 = 0, 'crawler', ''), ['desktop', 'mobile', 'tablet'][1 + number % 3], ['Chrome', 'Safari', 'Firefox'][1 + number % 3],
     '120.0.6099', ['Windows', 'iOS', 'Android', 'macOS'][1 + number % 4], '17.1', ['US', 'DE', 'GB', 'FR', 'XX'][1 + number % 5],
     '', '', ['direct', 'www.google.com', 'news.ycombinator.com'][1 + number % 3],
     if(number % 3 = 0, '', concat('https://www.google.com/search?q=link+', toString(number % 977))), 'en-US', ''
   FROM numbers({rows:UInt64})`,
  { from, span: now - from - 1000, rows: ROWS, account: account.id, links: linkIds },
);
console.log(`loaded ${ROWS.toLocaleString("en")} clicks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const start = new Date(from).toISOString().slice(0, 10);
const end = new Date(now).toISOString().slice(0, 10);
const scope: ExportScope = {
  kind: "clicks",
  accountId: account.id,
  from: `${start} 00:00:00.000`,
  to: `${new Date(Date.parse(end) + 86_400_000).toISOString().slice(0, 10)} 00:00:00.000`,
  codes: await findLinkCodes(pg.db, account.id, {}),
};
const server = serveApp(runtime, { port: 0, hostname: "127.0.0.1" });
const url = `http://127.0.0.1:${server.port}/public-api/v1/exports/clicks?start_date=${start}&end_date=${end}`;

/** The export's SELECT in one query; `unordered` drops its ORDER BY (rows in storage order: the cheapest CSV ClickHouse can make of them). */
async function baseline(unordered = false) {
  const plan = chunkQuery(ch, scope, "csv", null);
  const query = unordered ? plan.query.replace(/ORDER BY timestamp, click_id\s*\)\s*ORDER BY r_timestamp, r_click_id/, ")") : plan.query;
  if (unordered && query === plan.query) throw new Error("the unordered baseline did not drop the ORDER BY");
  const params = plan.params;
  const started = performance.now();
  const result = await ch.client.exec({ query, query_params: params });
  let bytes = 0;
  for await (const part of result.stream) bytes += (part as Buffer).length;
  return { seconds: (performance.now() - started) / 1000, bytes };
}

async function overHttp(extra = "", headers: string[] = []) {
  const started = performance.now();
  const curl = Bun.spawn(
    [
      "curl",
      "-sS",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code} %{size_download}",
      "-H",
      `X-API-Key: ${key}`,
      ...headers.flatMap((h) => ["-H", h]),
      url + extra,
    ],
    { stdout: "pipe" },
  );
  const [status, bytes] = (await new Response(curl.stdout).text()).split(" ").map(Number);
  await curl.exited;
  if (status !== 200) throw new Error(`export answered ${status}`);
  return { seconds: (performance.now() - started) / 1000, bytes };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rate = (s: number) => `${Math.round(ROWS / s).toLocaleString("en")} rows/s`;
const base: number[] = [];
const unordered: number[] = [];
const http: number[] = [];
await overHttp("&limit=1000"); // warms the caches both share
for (let round = 1; round <= ROUNDS; round++) {
  const b = await baseline();
  const u = await baseline(true);
  const h = await overHttp();
  base.push(b.seconds);
  unordered.push(u.seconds);
  http.push(h.seconds);
  console.log(
    `round ${round}: chDB FORMAT CSV ${b.seconds.toFixed(2)} s (${(b.bytes / 1e6).toFixed(0)} MB, ${rate(b.seconds)}); ` +
      `unordered ${u.seconds.toFixed(2)} s (${rate(u.seconds)}); ` +
      `HTTP export ${h.seconds.toFixed(2)} s (${(h.bytes / 1e6).toFixed(0)} MB, ${rate(h.seconds)}); load ${load()}`,
  );
}
const gz = await overHttp("", ["Accept-Encoding: gzip"]);
console.log(`with gzip (one run): ${gz.seconds.toFixed(2)} s, ${(gz.bytes / 1e6).toFixed(0)} MB sent, ${rate(gz.seconds)}`);
const nd = await overHttp("&format=ndjson");
console.log(`NDJSON (one run): ${nd.seconds.toFixed(2)} s, ${(nd.bytes / 1e6).toFixed(0)} MB, ${rate(nd.seconds)}`);

const ratio = median(base) / median(http);
console.log(
  `\nmedian of ${ROUNDS}: chDB ${rate(median(base))} (unordered ${rate(median(unordered))}), HTTP export ${rate(median(http))}; ` +
    `export/ClickHouse = ${ratio.toFixed(2)} (bar: ≥ 0.50) ${ratio >= 0.5 ? "PASS" : "FAIL"}, ` +
    `export/unordered ClickHouse = ${(median(unordered) / median(http)).toFixed(2)}; load ${load()}`,
);
await server.stop();
await runtime.close();
rmSync(dataDir, { recursive: true, force: true });
if (ratio < 0.5) process.exit(1);
