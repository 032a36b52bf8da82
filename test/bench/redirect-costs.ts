// `bun run bench redirect-costs`: what each piece of a click-logging redirect costs, in server CPU
// microseconds per request (all threads, over a wrk round), next to a bare Bun.serve 302. CPU per request
// hardly moves when other work shares the machine, unlike req/s. The variants alternate over the rounds.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BROWSER_UA, cpuSeconds, table, wrk } from "./lib-server";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ALL = [
  "bare",
  "promise",
  "uuid",
  "json",
  "headers",
  "requestIP",
  "3 more response headers",
  "click record",
  "write per request",
  "write per turn",
  "binary record per turn",
  "spool's JSON record per turn",
  "spool's binary record per turn",
];
// BENCH_VARIANTS: a comma-separated subset (the bare 302 always runs first).
const VARIANTS = process.env.BENCH_VARIANTS
  ? ["bare", ...process.env.BENCH_VARIANTS.split(",").filter((v) => v !== "bare" && ALL.includes(v))]
  : ALL;
const dir = mkdtempSync(join(tmpdir(), "svc-bench-pieces-"));

const servers = await Promise.all(
  VARIANTS.map(async (variant, i) => {
    const port = 3930 + i;
    const proc = Bun.spawn(
      [process.execPath, join(import.meta.dir, "lib-redirect-pieces.ts"), variant, String(port), join(dir, `${i}.log`)],
      { stdout: "ignore", stderr: "inherit" },
    );
    for (let k = 0; k < 100; k++) {
      try {
        await fetch(`http://127.0.0.1:${port}/`);
        break;
      } catch {
        await Bun.sleep(50);
      }
    }
    wrk(`http://127.0.0.1:${port}/abc`, { connections: 64, seconds: 1 }); // warm the JIT
    return { variant, port, proc, cpu: [] as number[], rps: [] as number[] };
  }),
);

for (let round = 0; round < ROUNDS; round++) {
  for (const s of servers) {
    const before = cpuSeconds(s.proc.pid);
    const r = wrk(`http://127.0.0.1:${s.port}/abc`, { connections: 64, seconds: SECONDS, headers: { "User-Agent": BROWSER_UA } });
    s.cpu.push(((cpuSeconds(s.proc.pid) - before) * 1e6) / r.requests);
    s.rps.push(r.rps);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const bare = median(servers[0].cpu);
table(
  servers.map((s) => ({
    "302 plus": s.variant,
    "server CPU µs/req (median)": median(s.cpu).toFixed(2),
    "added µs": (median(s.cpu) - bare).toFixed(2),
    "req/s (median)": Math.round(median(s.rps)),
    "bare CPU ÷ this CPU": (bare / median(s.cpu)).toFixed(3),
  })),
);
console.log(
  `\n"click record" = uuid + 3 request headers + requestIP + JSON; the "write" rows add the spool write to it; ` +
    `"binary record per turn" = the same values as a fixed-layout record (id from a counter, length-prefixed strings) in a preallocated buffer, one write per turn. ` +
    `The "spool's" rows are the redirect's own click (record-click.ts): the previous JSON line with a random UUID, and the binary record (spool-record.ts) with a counter id.`,
);
for (const s of servers) s.proc.kill();
await Promise.all(servers.map((s) => s.proc.exited));
rmSync(dir, { recursive: true, force: true });
