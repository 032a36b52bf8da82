// `bun run bench reports-under-load`: 16 report calls at once, over and over, on the analytics bench's
// 10 million clicks (loaded by test/bench/analytics.ts itself into BENCH_DATA_DIR, or a fresh directory),
// while redirects and journey batches keep coming in (ingest at a steady rate, in the same process).
// For each report: p50 and p99 under that load, alone (one call at a time, no ingest) for comparison,
// and the bar: p99 within 3× p50. BENCH_CLICKS, BENCH_ROUNDS (calls per caller, default 8).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../server/config";
import { openRuntime } from "../../server/runtime";
import { BROWSER_UA, table } from "./lib-server";
import { percentile } from "./lib-timing";

const CONCURRENCY = 16;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const ADMIN = "bench-admin-token-0123456789";
const BAR = 3;

const keep = process.env.BENCH_DATA_DIR;
const dataDir = keep ?? mkdtempSync(join(tmpdir(), "svc-bench-reports-load-"));
if (keep) mkdirSync(keep, { recursive: true });
const loadedFile = join(dataDir, "bench-analytics.json");
if (!existsSync(loadedFile)) {
  // The analytics bench's own generator (and its analytics job round); it stops after the load.
  const started = performance.now();
  const p = Bun.spawnSync([process.execPath, join(import.meta.dir, "analytics.ts")], {
    env: { ...process.env, BENCH_DATA_DIR: dataDir, BENCH_STOP_AFTER_LOAD: "1", BENCH_RUNS: "1" },
    stdout: "inherit",
    stderr: "inherit",
  });
  if (p.exitCode !== 0 || !existsSync(loadedFile)) throw new Error("the analytics bench did not load its clicks");
  console.log(`data loaded by bench analytics in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
const { key, accountId } = JSON.parse(readFileSync(loadedFile, "utf8")) as { key: string; accountId: string };

const config = loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LOG_LEVEL: "silent", BASE_URL: "http://127.0.0.1:3000" });
const runtime = await openRuntime(config, { jobs: false });
const { ch } = runtime.deps;
const handle = (path: string, init: RequestInit = {}) => runtime.app.handle(new Request(`http://127.0.0.1:3000${path}`, init));

const busiest = (
  await ch.query<{ link_id: string }>(
    `SELECT link_id FROM ${ch.table("clicks_daily_links")} WHERE account_id = {account:UUID} GROUP BY link_id ORDER BY sum(clicks) DESC LIMIT 1`,
    { account: accountId },
  )
)[0].link_id;

const API = "/public-api/v1";
const REPORTS: [string, string][] = [
  ["summary, 30 days", `${API}/analytics/summary?days=30`],
  ["geo, 30 days", `${API}/analytics/geo?days=30`],
  ["referrers, 30 days", `${API}/analytics/referrers?days=30`],
  ["timeseries, 30 days", `${API}/analytics/timeseries?days=30`],
  ["summary, 90 days, all traffic", `${API}/analytics/summary?days=90&bot_filter=all`],
  ["link stats (busiest link)", `${API}/links/${busiest}/stats`],
  ["journey summary (busiest link)", `${API}/journey/links/${busiest}/summary?period=30d`],
  ["conversions summary", `${API}/conversions/summary?period=30d`],
];

/** Answers other than 200 by report and code (QUERY_TIMEOUT past CLICKHOUSE_QUERY_TIMEOUT_MS). */
const refused = new Map<string, number>();
async function report(path: string): Promise<number> {
  const started = performance.now();
  const res = await handle(path, { headers: { "x-api-key": key } });
  const body = (await res.json()) as { error?: { code?: string } };
  if (res.status === 503) refused.set(body.error?.code ?? "503", (refused.get(body.error?.code ?? "503") ?? 0) + 1);
  else if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return performance.now() - started;
}

// Ingest while the reports run: redirects of the account's links and journey batches, at a steady rate.
let ingesting = true;
let redirects = 0;
let events = 0;
async function ingest() {
  let n = 0;
  while (ingesting) {
    const batch = Array.from({ length: 20 }, () => {
      n++;
      return handle(`/bench${1 + (n % 1000)}`, {
        headers: { "user-agent": BROWSER_UA, "x-forwarded-for": `10.0.${n % 250}.${n % 200}` },
      }).then(async (r) => {
        if (r.status !== 302) throw new Error(`redirect: ${r.status} ${(await r.text()).slice(0, 300)}`);
        redirects++;
      });
    });
    const journey = handle(`${API}/journey/events`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({
        events: Array.from({ length: 50 }, (_, i) => ({
          link_id: busiest,
          visitor_id: `v${(n + i) % 5000}`,
          session_id: `s${(n + i) % 8000}`,
          event_type: i % 10 === 0 ? "conversion" : "page_view",
          page_url: `https://example.com/p/${i % 30}`,
        })),
      }),
    }).then((r) => {
      if (r.status !== 202) throw new Error(`journey ingest: ${r.status}`);
      events += 50;
    });
    await Promise.all([...batch, journey]);
    await Bun.sleep(50);
  }
}

const load = () => loadavg()[0].toFixed(1);

// Alone: one call at a time, no ingest (after a warm-up call of each).
const alone = new Map<string, number>();
for (const [name, path] of REPORTS) {
  await report(path);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push(await report(path));
  alone.set(
    name,
    percentile(
      times.sort((a, b) => a - b),
      50,
    ),
  );
}

// Under load: 16 callers, each calling the reports in turn from its own starting point, ROUNDS times.
const ingestDone = ingest();
const times = new Map<string, number[]>(REPORTS.map(([name]) => [name, []]));
const started = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async (_, caller) => {
    for (let round = 0; round < ROUNDS; round++) {
      const [name, path] = REPORTS[(caller + round) % REPORTS.length];
      times.get(name)!.push(await report(path));
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
ingesting = false;
await ingestDone;

const rows: Record<string, string | number>[] = [];
for (const [name] of REPORTS) {
  const t = times.get(name)!.sort((a, b) => a - b);
  const p50 = percentile(t, 50);
  const p99 = percentile(t, 99);
  rows.push({
    report: name,
    calls: t.length,
    "alone p50 ms": alone.get(name)!.toFixed(0),
    "p50 ms": p50.toFixed(0),
    "p99 ms": p99.toFixed(0),
    "p99 ÷ p50": (p99 / p50).toFixed(2),
    [`≤${BAR}×`]: p99 <= BAR * p50 ? "pass" : "MISS",
  });
}
table(rows);
console.log(
  `\n${CONCURRENCY} callers × ${ROUNDS} report calls in ${seconds.toFixed(1)} s, while ${redirects.toLocaleString("en")} redirects and ` +
    `${events.toLocaleString("en")} journey events were accepted (${(redirects / seconds).toFixed(0)}/s, ${(events / seconds).toFixed(0)}/s); ` +
    `account ${accountId}; load average ${load()} at the end.`,
);
if (refused.size) console.log(`answered 503 (timed as they answered): ${[...refused].map(([code, n]) => `${n} ${code}`).join(", ")}`);

await runtime.close();
if (!keep) rmSync(dataDir, { recursive: true, force: true });
if (rows.some((r) => r[`≤${BAR}×`] === "MISS")) process.exit(1);
