// `bun run bench soak`: the memory of one embedded instance under sustained load. The server is started
// once (PGlite's initdb and the migrations), stopped and started again on the same DATA_DIR (as an
// operator's instance runs: docs/operations.md "Memory"), then loaded for BENCH_SECONDS (60) with
// redirects over 8 connections and 100-event journey batches over 4, together. Prints the resident
// memory every 5 s, the peak, the server's `memory_bytes` gauges (what holds it) at the end of the load
// and once the clicks are stored, and the answers that were not 2xx/3xx.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { memoryMb, startServer, table, wrkAsync } from "./lib-server";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const PORT = Number(process.env.BENCH_PORT ?? 3931);
const env = { LOG_LEVEL: "error", ...(process.env.BENCH_ENV ? JSON.parse(process.env.BENCH_ENV) : {}) };

const first = await startServer(PORT, env);
const dataDir = first.dataDir;
const firstStart = memoryMb(first.proc.pid);
await first.stop({ keepData: true });
const server = await startServer(PORT, { ...env, DATA_DIR: dataDir });
const pid = server.proc.pid;
const restarted = memoryMb(pid);
const headers = { "x-api-key": server.key, "content-type": "application/json" };
const link = await fetch(`${server.url}/public-api/v1/links`, {
  method: "POST",
  headers,
  body: JSON.stringify({ url: "https://example.com/landing" }),
}).then((r) => r.json() as Promise<{ data: { id: string; short_code: string } }>);

const events = Array.from({ length: 100 }, (_, i) => ({
  link_id: link.data.id,
  visitor_id: `visitor-${i % 17}`,
  session_id: `session-${i % 23}`,
  event_type: i % 4 === 3 ? "custom" : "page_view",
  ...(i % 4 === 3 ? { event_name: "cta_click" } : {}),
  page_url: `https://shop.example/products/${i % 9}`,
  properties: { variant: "b", position: i },
}));
const dir = mkdtempSync(join(tmpdir(), "svc-bench-soak-"));
const script = join(dir, "post.lua");
writeFileSync(
  script,
  [
    `wrk.method = "POST"`,
    `wrk.body = ${JSON.stringify(JSON.stringify({ events }))}`,
    `wrk.headers["Content-Type"] = "application/json"`,
    `wrk.headers["X-API-Key"] = "${server.key}"`,
  ].join("\n"),
);

/** The server's memory_bytes gauges, by part, in MB. */
const parts = async () => {
  const text = await fetch(`${server.url}/metrics`).then((r) => r.text());
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/^memory_bytes\{part="([a-z_]+)"\} ([\d.e+]+)$/gm)) out[m[1]] = (Number(m[2]) / 1048576).toFixed(0);
  return out;
};

const samples: { s: number; rss: number; load: string }[] = [];
const t0 = Date.now();
const sampler = setInterval(() => {
  samples.push({ s: Math.round((Date.now() - t0) / 1000), rss: Math.round(memoryMb(pid).rss), load: loadavg()[0].toFixed(1) });
}, 5000);
const [redirects, batches] = await Promise.all([
  wrkAsync(`${server.url}/${link.data.short_code}`, { connections: 8, seconds: SECONDS }),
  wrkAsync(`${server.url}/public-api/v1/journey/events`, { connections: 4, seconds: SECONDS, script }),
]);
clearInterval(sampler);
const atEnd = { rss: memoryMb(pid), parts: await parts() };
// The clicks are stored when the spool has nothing unflushed (bounded wait: the flusher runs at idle priority).
for (let i = 0; i < 600; i++) {
  const m = await fetch(`${server.url}/metrics`).then((r) => r.text());
  if (!/spool_unflushed_bytes\{spool="[a-z]+"\} [1-9]/.test(m)) break;
  await Bun.sleep(500);
}
const drained = { s: Math.round((Date.now() - t0) / 1000), rss: memoryMb(pid), parts: await parts() };

console.log(
  `first start ${firstStart.rss.toFixed(0)} MB resident (peak ${firstStart.peak.toFixed(0)}); restarted ${restarted.rss.toFixed(0)} MB`,
);
table(samples.map((x) => ({ "seconds into the load": x.s, "resident MB": x.rss, "load average": x.load })));
console.log(
  `\nredirects ${redirects.requests} (${Math.round(redirects.rps)}/s, p99 ${redirects.p99} ms, ${redirects.errors} not 2xx/3xx); ` +
    `journey batches ${batches.requests} (${Math.round(batches.rps)}/s, ${batches.errors} not 2xx: 503s of backpressure count here)`,
);
console.log(
  `end of load: ${atEnd.rss.rss.toFixed(0)} MB resident, peak ${atEnd.rss.peak.toFixed(0)} MB; parts (MB) ${JSON.stringify(atEnd.parts)}`,
);
console.log(`stored (${drained.s} s): ${drained.rss.rss.toFixed(0)} MB resident; parts (MB) ${JSON.stringify(drained.parts)}`);
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
rmSync(dir, { recursive: true, force: true });
