// The raw work behind journey ingest, for the ingest bench's baseline: `argv[2]` events (the batch in the
// JSON file `argv[3]`, repeated with new ids) become the spool's lines, cut into the flusher's 16 MB
// chunks and turned into JSONCompactEachRow as the flusher does, then inserted one chunk at a time into
// a fresh embedded chDB with our tables and views. Only the inserts are timed; prints
// `{"events":…,"cpuSeconds":…,"seconds":…}` (CPU of every thread of this process).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { insertJourneyRows } from "../../server/ingest/journey/repository";
import { spoolLinesToRows, toJourneyRow } from "../../server/ingest/journey/rows";
import { chTime } from "../../server/storage/clickhouse/format";
import { openClickhouse } from "../../server/storage/clickhouse/client";
import { cpuSeconds } from "./lib-server";

const total = Number(process.argv[2]);
const batch = JSON.parse(readFileSync(process.argv[3], "utf8")) as Record<string, unknown>[];
const CHUNK_BYTES = 16 * 1024 * 1024; // the journey stream's maxChunkBytes (server/ingest/journey/sink.ts)

const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-chdb-"));
const ch = await openClickhouse({ database: "bench", dataDir });
const accountId = crypto.randomUUID();

// One spool line per accepted batch, as the ingest route writes it.
const chunks: { bytes: Buffer; rows: number }[] = [];
let lines: string[] = [];
let size = 0;
const cut = () => {
  const bytes = Buffer.from(lines.join(""));
  chunks.push({ bytes, rows: spoolLinesToRows(bytes) });
  lines = [];
  size = 0;
};
for (let made = 0; made < total; made += batch.length) {
  const now = Date.now();
  const received = chTime(now);
  const events = batch.slice(0, total - made);
  const line = `${JSON.stringify(events.map((e) => toJourneyRow(crypto.randomUUID(), now, received, accountId, e)))}\n`;
  if (size + line.length > CHUNK_BYTES) cut();
  lines.push(line);
  size += line.length;
}
if (lines.length) cut();

const cpuBefore = cpuSeconds(process.pid);
const started = performance.now();
for (const [i, c] of chunks.entries()) await insertJourneyRows(ch, c.bytes, c.rows, `bench-${i}`);
const seconds = (performance.now() - started) / 1000;
const cpu = cpuSeconds(process.pid) - cpuBefore;

const [{ n }] = await ch.query<{ n: string }>("SELECT count() AS n FROM bench.journey_events");
if (Number(n) !== total) throw new Error(`inserted ${total} events, journey_events holds ${n}`);
await ch.close();
rmSync(dataDir, { recursive: true, force: true });
console.log(JSON.stringify({ events: total, chunks: chunks.length, cpuSeconds: cpu, seconds }));
