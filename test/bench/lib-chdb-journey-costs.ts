// The ClickHouse side of journey ingest split in two, for `bun run bench ingest-costs`: what one insert
// costs whatever its size (inserts of one row) and what each further event costs (inserts of `argv[2]`
// rows, the flusher's full 16 MB chunk), each with our tables and views and with journey_events alone,
// then the one-row cost without each view in turn (the view's own fixed share). CPU of every thread of
// this process, user and system (kernel) apart. The batch is the JSON file `argv[3]`; prints one JSON line.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toJourneyRow } from "../../server/ingest/journey/rows";
import { journeyBinaryLine } from "../../server/ingest/journey/row-binary";
import { journeyStream } from "../../server/ingest/journey/sink";
import { openClickhouse } from "../../server/storage/clickhouse/client";
import { chTime } from "../../server/storage/clickhouse/format";

const chunkRows = Number(process.argv[2]);
const batch = JSON.parse(readFileSync(process.argv[3], "utf8")) as Record<string, unknown>[];
const ROUNDS = 3;
const ONE_ROW_INSERTS = 10;

/** user and system CPU seconds of this process so far (every thread), from /proc. */
function cpu(): { user: number; system: number } {
  const stat = readFileSync(`/proc/${process.pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { user: Number(f[11]) / 100, system: Number(f[12]) / 100 };
}

const accountId = crypto.randomUUID();
/** `rows` events as the spool holds them with embedded chDB (one binary line per 100-event batch). */
function chunk(rows: number): Buffer {
  const lines: Buffer[] = [];
  for (let made = 0; made < rows; made += batch.length) {
    const now = Date.now();
    const received = chTime(now);
    const events = batch.slice(0, rows - made);
    lines.push(journeyBinaryLine(events.map((e) => toJourneyRow(crypto.randomUUID(), now, received, accountId, e)))!);
  }
  return Buffer.concat(lines);
}

const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-chdb-costs-"));
const ch = await openClickhouse({ database: "bench", dataDir });
let token = 0;
// The flusher's own sink: the chunk decoded to RowBinary, written to a file, read through file().
const { sinkRaw } = journeyStream(ch, { dataDir });

/** CPU µs per insert of chunks of `rows` rows (user, system), the inputs made before the clock starts. */
async function perInsert(rows: number, inserts: number): Promise<{ user: number; system: number }> {
  const chunks = Array.from({ length: inserts }, () => chunk(rows));
  const before = cpu();
  for (const c of chunks) await sinkRaw(c, `costs-${token++}`);
  const after = cpu();
  return { user: ((after.user - before.user) * 1e6) / inserts, system: ((after.system - before.system) * 1e6) / inserts };
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** Median over ROUNDS of per-insert CPU for one-row inserts and for full chunks. */
async function measure() {
  const one: number[] = [];
  const oneSystem: number[] = [];
  const full: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const o = await perInsert(1, ONE_ROW_INSERTS);
    one.push(o.user + o.system);
    oneSystem.push(o.system);
    const f = await perInsert(chunkRows, 1);
    full.push(f.user + f.system);
  }
  const fixedUs = median(one);
  return {
    fixedMs: fixedUs / 1000,
    fixedSystemMs: median(oneSystem) / 1000,
    chunkUsPerEvent: median(full) / chunkRows,
    perEventUs: (median(full) - fixedUs) / chunkRows,
  };
}

await perInsert(1, 3); // warm-up: the first inserts build caches
const withViews = await measure();
const views = await ch.query<{ name: string; q: string }>(
  "SELECT name, create_table_query AS q FROM system.tables WHERE database = 'bench' AND engine = 'MaterializedView' AND name LIKE 'journey%' ORDER BY name",
);
const viewFixedMs: Record<string, number> = {};
for (const v of views) {
  await ch.command(`DROP VIEW bench.${v.name}`);
  const o = await perInsert(1, ONE_ROW_INSERTS);
  viewFixedMs[v.name] = withViews.fixedMs - (o.user + o.system) / 1000;
  await ch.command(v.q);
}
for (const v of views) await ch.command(`DROP VIEW bench.${v.name}`);
const tableAlone = await measure();
await ch.close();
rmSync(dataDir, { recursive: true, force: true });
console.log(JSON.stringify({ chunkRows, withViews, tableAlone, viewFixedMs }));
