// `bun run bench redirect`: GET /{code} with click logging vs a bare Bun.serve answering 302,
// alternating in one run, same load tool (wrk) and connections. Target: ratio ≥ 0.9, p99 < 5 ms at 64.
// One more case on the same server: a link with five targeting rules (none of which matches the load's
// requests, so all five are evaluated), two A/B variants (each request a new visitor: a draw and a
// cookie) and a max_clicks (each click counted in Postgres). Target: server CPU per redirect at most
// 1.15 × the plain link's.
import { cpuSeconds, memoryMb, startBare, startServer, table, wrk, type WrkResult } from "./lib-server";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Ours on PORT, the bare 302 on PORT + 1, ours with the flusher paused on PORT + 2. */
const PORT = Number(process.env.BENCH_PORT ?? 3901);

// Two servers of ours: as deployed (the flush worker enriches clicks and inserts them into the embedded
// ClickHouse at low priority in the same process), and with the flusher paused (the serving path alone).
// BENCH_DATABASE_URL: both servers on a Postgres server (separate accounts) instead of embedded PGlite.
const db: Record<string, string> = process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {};
const ours = await startServer(PORT, { ...db, ...(process.env.BENCH_ENV ? JSON.parse(process.env.BENCH_ENV) : {}) });
const paused = await startServer(PORT + 2, { ...db, SPOOL_FLUSH_MS: "3600000" });
const createLink = (s: { url: string; key: string }, extra: Record<string, unknown> = {}) =>
  fetch(`${s.url}/public-api/v1/links`, {
    method: "POST",
    headers: { "x-api-key": s.key, "content-type": "application/json" },
    body: JSON.stringify({ url: "https://example.com/landing", title: "Bench", description: "Bench", ...extra }),
  })
    .then((r) => r.json() as Promise<{ data: { short_code: string } }>)
    .then((j) => j.data.short_code);
const code = await createLink(ours);
const TARGETED = {
  rules: [
    { if: { country: ["DE", "AT", "CH"] }, url: "https://example.com/de" },
    { if: { device: ["tablet"] }, url: "https://example.com/tablet" },
    { if: { os: ["android"] }, url: "https://play.google.com/store/apps/details?id=x" },
    { if: { language: ["ja"] }, url: "https://example.com/ja" },
    { if: { query: { name: "campaign", value: "spring" } }, url: "https://example.com/spring" },
  ],
  variants: [
    { url: "https://example.com/a", weight: 50 },
    { url: "https://example.com/b", weight: 50 },
  ],
  max_clicks: 1_000_000_000,
};
const targetedCode = await createLink(ours, TARGETED);
const pausedTargetedCode = await createLink(paused, TARGETED);
const pausedCode = await createLink(paused);

const bare = (await startBare("lib-bare-302.ts", PORT + 1)).proc;

const clickGauge = async (name: string) => {
  const stats = await fetch(`${ours.url}/metrics`).then((r) => r.text());
  return Number(new RegExp(`${name}\\{spool="clicks"\\} (\\S+)`).exec(stats)?.[1] ?? NaN);
};
const unflushedClicks = () => clickGauge("spool_unflushed_bytes");
/** The click lag as /metrics shows it when a round's load stops: age of the oldest unstored click, bytes behind. */
const lags: { seconds: number; bytes: number }[] = [];
const recordLag = async () => lags.push({ seconds: await clickGauge("spool_lag_seconds"), bytes: await unflushedClicks() });
/** Seconds until every click served so far is in ClickHouse (the flusher caught up). */
const drain = async () => {
  const started = performance.now();
  while ((await unflushedClicks()) > 0) await Bun.sleep(50);
  return (performance.now() - started) / 1000;
};

// Warm all three (JIT, caches).
let served = wrk(`${ours.url}/${code}`, { connections: CONNECTIONS, seconds: 2 }).requests;
served += wrk(`${ours.url}/${targetedCode}`, { connections: CONNECTIONS, seconds: 2 }).requests;
wrk(`http://127.0.0.1:${PORT + 1}/x`, { connections: CONNECTIONS, seconds: 2 });
wrk(`${paused.url}/${pausedCode}`, { connections: CONNECTIONS, seconds: 2 });
await drain();

// Server CPU per request (every thread of the server process, over the round; for ours as deployed it
// includes storing the click, up to the end of the drain that follows). Unlike req/s it hardly moves
// when other work shares the machine, so it shows where the time goes.
type Round = WrkResult & { cpuUs: number };
const measure = async (pid: number, url: string, after?: () => Promise<unknown>): Promise<Round> => {
  const before = cpuSeconds(pid);
  const r = wrk(url, { connections: CONNECTIONS, seconds: SECONDS });
  await after?.();
  return { ...r, cpuUs: ((cpuSeconds(pid) - before) * 1e6) / r.requests };
};

// Each round starts with our flusher caught up, so no round pays for the one before it.
const results: Record<"bare" | "ours" | "paused" | "targeted" | "pausedTargeted", Round[]> = {
  bare: [],
  ours: [],
  paused: [],
  targeted: [],
  pausedTargeted: [],
};
const drains: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  results.bare.push(await measure(bare.pid, `http://127.0.0.1:${PORT + 1}/x`));
  const r = await measure(ours.proc.pid, `${ours.url}/${code}`, async () => {
    await recordLag();
    drains.push(await drain());
  });
  results.ours.push(r);
  served += r.requests;
  results.paused.push(await measure(paused.proc.pid, `${paused.url}/${pausedCode}`));
  const t = await measure(ours.proc.pid, `${ours.url}/${targetedCode}`, async () => {
    await recordLag();
    drains.push(await drain());
  });
  results.targeted.push(t);
  served += t.requests;
  results.pausedTargeted.push(await measure(paused.proc.pid, `${paused.url}/${pausedTargetedCode}`));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summarize = (name: string, rs: Round[]) => ({
  server: name,
  "req/s (median)": Math.round(median(rs.map((r) => r.rps))),
  "p50 ms": median(rs.map((r) => r.p50)).toFixed(2),
  "p99 ms": median(rs.map((r) => r.p99)).toFixed(2),
  errors: rs.reduce((a, r) => a + r.errors, 0),
  "server CPU µs/req": median(rs.map((r) => r.cpuUs)).toFixed(2),
});
const b = summarize("bare Bun.serve 302", results.bare);
const o = summarize("GET /{code} + click logging", results.ours);
const p = summarize("  … with the flusher paused", results.paused);
const tg = summarize("GET /{code}: 5 rules, variants, max_clicks", results.targeted);
const ptg = summarize("  … with the flusher paused", results.pausedTargeted);
table([b, o, p, tg, ptg].map((r) => ({ ...r, "ratio to bare": (r["req/s (median)"] / b["req/s (median)"]).toFixed(3) })));
const ratio = o["req/s (median)"] / b["req/s (median)"];
console.log(
  `\nratio ours/bare: ${ratio.toFixed(3)} (target ≥ 0.9); p99 ${o["p99 ms"]} ms (target < 5 ms); ${CONNECTIONS} connections, ${ROUNDS}×${SECONDS}s alternating rounds`,
);

// Every served redirect must have become a click in ClickHouse.
const stored = await fetch(`${ours.url}/public-api/v1/analytics/summary?bot_filter=all`, { headers: { "x-api-key": ours.key } })
  .then((r) => r.json() as Promise<{ data: { analytics: { total_clicks: number } } }>)
  .then((j) => j.data.analytics.total_clicks);
const cpuRatio = (x: typeof o, y: typeof o) => (Number(x["server CPU µs/req"]) / Number(y["server CPU µs/req"])).toFixed(3);
console.log(
  `link with 5 rules, variants and max_clicks: server CPU per redirect ${cpuRatio(tg, o)} × the plain link's as deployed, ` +
    `${cpuRatio(ptg, p)} × with the flusher paused (serving alone); target ≤ 1.15`,
);
console.log(
  `after each ${SECONDS} s round, all its clicks were in ClickHouse within ${Math.max(...drains).toFixed(1)} s (median ${median(drains).toFixed(1)} s)`,
);
console.log(
  `click lag when each round's load stopped (spool_lag_seconds, spool_unflushed_bytes in /metrics): ` +
    lags.map((l) => `${l.seconds.toFixed(2)} s / ${(l.bytes / 1e6).toFixed(1)} MB`).join(", "),
);
const mem = memoryMb(ours.proc.pid);
console.log(`server as deployed: ${mem.rss.toFixed(0)} MB resident now, ${mem.peak.toFixed(0)} MB at its peak`);
console.log(`clicks stored: ${stored}; redirects wrk completed: ${served} (requests in flight when wrk stopped are served and stored too)`);

bare.kill();
await ours.stop();
await paused.stop();
