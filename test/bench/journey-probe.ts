// `bun test/bench/journey-probe.ts <data dir> <path>...`: where the time of one report call goes, on a
// `bun run bench journey` data directory (BENCH_DATA_DIR): every ClickHouse and Postgres query the call
// makes (its start and its time, in ms from the request's start) and the whole call, for the last of
// a few calls of each path (the first ones warm caches and the journey job runs once before them).
// PROBE_DUMP=<prefix> also writes each ClickHouse query of the measured calls, with its parameters, to
// <prefix>-<n>.json. The runtime's background jobs run meanwhile: read the "alone" times.
import { loadConfig } from "../../server/config";
import { openRuntime } from "../../server/runtime";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [dataDir, ...paths] = process.argv.slice(2);
const { key, linkId } = JSON.parse(readFileSync(join(dataDir, "bench-journey.json"), "utf8")) as { key: string; linkId: string };
const runtime = await openRuntime(loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: "bench-admin-token-0123456789", LOG_LEVEL: "error" }));
const { ch, pg } = runtime.deps;

let t0 = 0;
let log: string[] = [];
let recording = true;
let sqls: [string, Record<string, unknown> | undefined][] = [];
const note = (what: string, sql: string, started: number) =>
  log.push(
    `${what} +${(started - t0).toFixed(1)} ${(performance.now() - started).toFixed(1)} ms  ${sql.replace(/\s+/g, " ").trim().slice(0, 150)}`,
  );
for (const m of ["query", "command"] as const) {
  const orig = ch[m].bind(ch) as (q: string, p?: Record<string, unknown>) => Promise<unknown>;
  (ch as unknown as Record<string, unknown>)[m] = async (q: string, p?: Record<string, unknown>) => {
    const s = performance.now();
    if (m === "query" && recording) sqls.push([q, p]);
    if (m === "query" && recording && process.env.PROBE_DUMP)
      Bun.write(`${process.env.PROBE_DUMP}-${sqls.length}.json`, JSON.stringify([q, p]));
    try {
      return await orig(q, p);
    } finally {
      note("CH", q, s);
    }
  };
}
const client = (pg.db as unknown as { $client?: Record<string, unknown> }).$client;
if (client)
  for (const m of ["query", "exec"]) {
    const orig = (client[m] as (...a: unknown[]) => Promise<unknown>).bind(client);
    client[m] = async (q: string, ...rest: unknown[]) => {
      const s = performance.now();
      try {
        return await orig(q, ...rest);
      } finally {
        note("PG", String(q), s);
      }
    };
  }

const call = async (path: string) => {
  const res = await runtime.app.handle(new Request(`http://127.0.0.1:3000${path}`, { headers: { "x-api-key": key } }));
  await res.text();
  return res.status;
};
const full = (p: string) => `/public-api/v1/journey/links/${linkId}/${p}`;
for (const p of paths) await call(full(p));
await runtime.jobs.journey.runOnce();
for (const p of paths) {
  for (let i = 0; i < 4; i++) {
    log = [];
    sqls = [];
    recording = true;
    t0 = performance.now();
    const cpu = process.cpuUsage();
    const status = await call(full(p));
    const used = process.cpuUsage(cpu);
    if (i === 3) {
      console.log(
        `\n${p}: ${status} in ${(performance.now() - t0).toFixed(1)} ms, CPU ${((used.user + used.system) / 1000).toFixed(1)} ms`,
      );
      for (const l of log) console.log(`  ${l}`);
      // Each ClickHouse query again, alone: its median time over 7 runs.
      const mine = [...sqls];
      recording = false;
      for (const [q, params] of mine) {
        const times: number[] = [];
        for (let j = 0; j < 7; j++) {
          const s = performance.now();
          await ch.query(q, params);
          times.push(performance.now() - s);
        }
        times.sort((a, b) => a - b);
        console.log(`  alone: ${times[3].toFixed(1)} ms  ${q.replace(/\s+/g, " ").trim().slice(0, 100)}`);
      }
    }
  }
}
await runtime.close();
process.exit(0);
