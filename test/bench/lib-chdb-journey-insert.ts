// The raw work behind journey ingest, for the ingest bench's baseline: `argv[2]` events (the batch in the
// JSON file `argv[3]`, repeated with new ids) become the spool's lines (binary, as the ingest route
// writes them with embedded chDB), cut into the flusher's 16 MB chunks and stored one chunk at a time by
// the flusher's own sink (decoded to RowBinary, read through file()) into a fresh embedded chDB with our
// tables and views. Only the sink is timed; prints
// `{"events":…,"cpuSeconds":…,"seconds":…}` (CPU of every thread of this process).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toJourneyRow } from "../../server/ingest/journey/rows";
import { journeyBinaryLine } from "../../server/ingest/journey/row-binary";
import { journeyStream } from "../../server/ingest/journey/sink";
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
const chunks: Buffer[] = [];
let lines: Buffer[] = [];
let size = 0;
const cut = () => {
  chunks.push(Buffer.concat(lines));
  lines = [];
  size = 0;
};
for (let made = 0; made < total; made += batch.length) {
  const now = Date.now();
  const received = chTime(now);
  const events = batch.slice(0, total - made);
  const line = journeyBinaryLine(events.map((e) => toJourneyRow(crypto.randomUUID(), now, received, accountId, e)))!;
  if (size + line.length > CHUNK_BYTES) cut();
  lines.push(line);
  size += line.length;
}
if (lines.length) cut();

const cpuBefore = cpuSeconds(process.pid);
const started = performance.now();
const { sinkRaw } = journeyStream(ch, { dataDir });
for (const [i, c] of chunks.entries()) await sinkRaw(c, `bench-${i}`);
const seconds = (performance.now() - started) / 1000;
const cpu = cpuSeconds(process.pid) - cpuBefore;

const [{ n }] = await ch.query<{ n: string }>("SELECT count() AS n FROM bench.journey_events");
if (Number(n) !== total) throw new Error(`inserted ${total} events, journey_events holds ${n}`);
await ch.close();
rmSync(dataDir, { recursive: true, force: true });
console.log(JSON.stringify({ events: total, chunks: chunks.length, cpuSeconds: cpu, seconds }));
