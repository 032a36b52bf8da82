// The journey stream's two line formats against each other, in one process, alternating, several rounds:
// the same 46,000 rows (one 16 MB chunk of 100-event batches) (a) as JSON lines stored by the text
// flusher (JSONCompactEachRow: what a ClickHouse server gets, and what embedded chDB got before) and
// (b) as binary lines stored by the embedded flusher (base64 decoded into RowBinary, read through
// file()), into a fresh embedded chDB with our tables and views, merges stopped (both write the same
// parts). Prints the CPU µs per event (every thread of this process) of writing the lines (the request
// path's part) and of the flusher's sink. Run: bun test/bench/lib-chdb-journey-binary.ts (BENCH_ROUNDS,
// default 5); figures in docs/benchmarks.md.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Session } from "chdb";
import { toJourneyRow } from "../../server/ingest/journey/rows";
import { journeyBinaryLine } from "../../server/ingest/journey/row-binary";
import type { JourneyRow } from "../../server/ingest/journey/record";
import { journeyStream } from "../../server/ingest/journey/sink";
import { openClickhouse } from "../../server/storage/clickhouse/client";
import { chTime } from "../../server/storage/clickhouse/format";
import { journeyBatch } from "./lib-journey-batch";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROWS = 46_000;

const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-journey-binary-"));
const ch = await openClickhouse({ database: "bench", dataDir });
new Session(join(dataDir, "clickhouse")).query("SYSTEM STOP MERGES");
const text = journeyStream(ch);
const binary = journeyStream(ch, { dataDir });
if (!binary.appendLine) throw new Error("the embedded flusher did not open its insert folder");

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const account = crypto.randomUUID();
const events = journeyBatch(crypto.randomUUID(), 100);
function batches(): JourneyRow[][] {
  const out: JourneyRow[][] = [];
  for (let made = 0; made < ROWS; made += events.length) {
    const now = Date.now();
    out.push(events.map((e) => toJourneyRow(crypto.randomUUID(), now, chTime(now), account, e)));
  }
  return out;
}

const variants = {
  "JSON lines, text insert": { line: (rows: JourneyRow[]) => Buffer.from(`${JSON.stringify(rows)}\n`), sink: text.sinkRaw },
  "binary lines, RowBinary via file()": { line: (rows: JourneyRow[]) => journeyBinaryLine(rows)!, sink: binary.sinkRaw },
};
const results: Record<string, number[]> = {};
const note = (key: string, us: number) => (results[key] ??= []).push(us);
let token = 0;
for (let round = 0; round < ROUNDS; round++) {
  const order = Object.keys(variants) as (keyof typeof variants)[];
  if (round % 2) order.reverse();
  for (const name of order) {
    const v = variants[name];
    const made = batches();
    let before = cpuUs();
    const chunk = Buffer.concat(made.map(v.line));
    note(`${name}: the lines`, (cpuUs() - before) / ROWS);
    before = cpuUs();
    const stored = await v.sink(chunk, `ab-${token++}`);
    note(`${name}: the sink`, (cpuUs() - before) / ROWS);
    if (stored !== ROWS) throw new Error(`${name}: stored ${stored}`);
  }
}
const [{ n }] = await ch.query<{ n: string }>("SELECT count() AS n FROM bench.journey_events");
if (Number(n) !== ROUNDS * 2 * ROWS) throw new Error(`journey_events holds ${n}`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [key, xs] of Object.entries(results)) {
  console.log(`${key.padEnd(52)} median ${median(xs).toFixed(2)} µs/event   rounds ${xs.map((x) => x.toFixed(2)).join(" ")}`);
}
await ch.close();
rmSync(dataDir, { recursive: true, force: true });
