// Text rows against RowBinary for the embedded chDB's inserts, in one process, alternating, several rounds:
// the same click rows (the flush worker's 23 columns, into `clicks` and its seven views) and the same
// journey rows (the flusher's 16 MB chunk of spool lines, into `journey_events` and its views), each
// (a) as today: JSONCompactEachRow (the click worker's inline query; the journey flusher's raw insert),
// (b) RowBinary encoded in JavaScript and read by ClickHouse through `file()` from a temporary file,
// Prints CPU µs per row (every thread of this process) of the encoding alone and of encoding + insert.
// (chDB's native raw-insert entry, behind its text-only `insert()`, takes a `FORMAT RowBinary` prefix
// but failed on these rows with "Cannot read all data": not a route.) Run: bun test/bench/lib-chdb-binary-insert.ts
// (BENCH_ROUNDS, default 5; BENCH_MERGES=1 leaves merges running); figures in docs/benchmarks.md.
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Session } from "chdb";
import {
  CLICK_COLUMNS,
  clickRowLine,
  type ClickRow,
  CLICK_ROW_BINARY_STRUCTURE,
  writeClickRowBinary,
} from "../../server/ingest/clicks/rows";
import { insertStatement } from "../../server/ingest/clicks/repository";
import { insertJourneyRows } from "../../server/ingest/journey/repository";
import { JOURNEY_COLUMNS, spoolLinesToRows, toJourneyRow } from "../../server/ingest/journey/rows";
import type { JourneyRow } from "../../server/ingest/journey/record";
import { chunkInsertSettings } from "../../server/ingest/repository";
import { openClickhouse } from "../../server/storage/clickhouse/client";
import { chTime } from "../../server/storage/clickhouse/format";
import { RowBinaryWriter } from "../../server/storage/clickhouse/row-binary";
import { journeyBatch } from "./lib-journey-batch";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CLICK_ROWS = 20_000; // about one 8 MB clicks chunk
const CLICK_INSERTS = 3;
const JOURNEY_ROWS = 46_000; // one 16 MB journey chunk

const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-binary-"));
const ch = await openClickhouse({ database: "bench", dataDir });
const session = new Session(join(dataDir, "clickhouse"));
// Merges would run on the engine's threads during whichever variant comes next: both write the same parts.
if (process.env.BENCH_MERGES !== "1") session.query("SYSTEM STOP MERGES");

function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

// ---- clicks
const BROWSERS = ["Chrome", "Firefox", "Safari", "Edge"];
const accounts = Array.from({ length: 5 }, () => crypto.randomUUID());
const links = Array.from({ length: 200 }, () => crypto.randomUUID());
function clickRows(n: number): ClickRow[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => ({
    click_id: crypto.randomUUID(),
    timestamp: now - (n - i),
    account_id: accounts[i % 5],
    link_id: links[i % 200],
    domain: "sho.rt",
    visitor_hash: String(BigInt.asUintN(64, BigInt(Math.floor(Math.random() * 2 ** 53)) * 2053n)),
    is_bot: i % 20 === 0 ? 1 : 0,
    bot_kind: i % 20 === 0 ? "crawler" : "",
    device_type: i % 3 ? "desktop" : "mobile",
    browser: BROWSERS[i % 4],
    browser_version: `${120 + (i % 9)}`,
    os: i % 3 ? "Windows" : "Android",
    os_version: i % 3 ? "10" : "14",
    country_code: ["DE", "US", "FR", "GB"][i % 4],
    region: "",
    city: "",
    referrer: i % 2 ? "news.ycombinator.com" : "",
    referrer_url: i % 2 ? "https://news.ycombinator.com/item?id=12345678" : "",
    language: "en-US",
    query: i % 5 ? "" : "utm_source=newsletter&utm_medium=email",
    source: i % 7 ? "link" : "qr",
    variant: "",
    rule: 0,
  }));
}

function clickBinary(w: RowBinaryWriter, rows: readonly ClickRow[]) {
  w.reset();
  for (const r of rows) writeClickRowBinary(w, r);
  return w.bytes();
}

const CLICK_STRUCTURE = CLICK_ROW_BINARY_STRUCTURE;

const IN_CALLING_THREAD = "input_format_parallel_parsing = 0, max_threads = 1, max_insert_threads = 1, parallel_view_processing = 0";
const settingsClause = (rows: number, token: string) =>
  Object.entries(chunkInsertSettings(rows, token))
    .map(([k, v]) => `${k} = ${typeof v === "number" ? v : `'${v}'`}`)
    .join(", ");

let token = 0;
const w = new RowBinaryWriter(16 << 20);
const binFile = join(dataDir, "rows.bin");

const clickVariants: Record<string, (rows: ClickRow[]) => Promise<void> | void> = {
  "json (today)": (rows) => {
    session.query(`${insertStatement("bench.clicks", CLICK_COLUMNS, rows.length, `c-${token++}`)}\n${rows.map(clickRowLine).join("\n")}`);
  },
  "RowBinary via file()": (rows) => {
    writeFileSync(binFile, clickBinary(w, rows));
    session.query(
      `INSERT INTO bench.clicks (${CLICK_COLUMNS.join(", ")}) SETTINGS ${settingsClause(rows.length, `c-${token++}`)}, ${IN_CALLING_THREAD} ` +
        `SELECT * FROM file('${binFile}', 'RowBinary', '${CLICK_STRUCTURE.replaceAll("'", "\\'")}')`,
    );
    unlinkSync(binFile);
  },
};
const clickEncode: Record<string, (rows: ClickRow[]) => unknown> = {
  "json (today)": (rows) => rows.map(clickRowLine).join("\n"),
  "RowBinary via file()": (rows) => clickBinary(w, rows),
};

// ---- journey
const jBatch = journeyBatch(crypto.randomUUID(), 100);
const jAccount = crypto.randomUUID();
function journeyChunk(rows: number): Buffer {
  const lines: string[] = [];
  for (let made = 0; made < rows; made += jBatch.length) {
    const now = Date.now();
    const received = chTime(now);
    lines.push(
      `${JSON.stringify(jBatch.slice(0, rows - made).map((e) => toJourneyRow(crypto.randomUUID(), now, received, jAccount, e)))}\n`,
    );
  }
  return Buffer.from(lines.join(""));
}

/** "YYYY-MM-DD hh:mm:ss.mmm" (UTC) as epoch ms, without Date's parser. */
function chTimeMs(s: string): number {
  const d = (i: number, n: number) => {
    let v = 0;
    for (let k = i; k < i + n; k++) v = v * 10 + s.charCodeAt(k) - 48;
    return v;
  };
  return Date.UTC(d(0, 4), d(5, 2) - 1, d(8, 2), d(11, 2), d(14, 2), d(17, 2), d(20, 3));
}

const str = (v: unknown) => (typeof v === "string" ? v : "");
const numOrNull = (v: unknown) => (typeof v === "number" ? v : null);
function journeyBinary(w: RowBinaryWriter, chunk: Buffer) {
  w.reset();
  let rows = 0;
  for (let start = 0; start < chunk.length; ) {
    let end = chunk.indexOf(10, start);
    if (end < 0) end = chunk.length;
    if (end > start) {
      for (const r of JSON.parse(chunk.toString("utf8", start, end)) as JourneyRow[]) {
        w.uuid(str(r[0]));
        w.i64(chTimeMs(str(r[1])));
        w.i64(chTimeMs(str(r[2])));
        w.uuid(str(r[3]));
        w.uuid(str(r[4]));
        for (let i = 5; i <= 10; i++) w.string(str(r[i]));
        w.nullableF32(numOrNull(r[11]));
        w.nullableF64(numOrNull(r[12]));
        w.string(str(r[13]));
        w.i64(Number(r[14]));
        for (let i = 15; i <= 24; i++) w.string(str(r[i]));
        w.u8(Number(r[25] ?? 0));
        rows++;
      }
    }
    start = end + 1;
  }
  return { bytes: w.bytes(), rows };
}
const JOURNEY_STRUCTURE =
  "event_id UUID, received_at DateTime64(3, 'UTC'), timestamp DateTime64(3, 'UTC'), account_id UUID, link_id UUID, visitor_id String, " +
  "session_id String, event_type String, event_name String, page_url String, page_title String, scroll_percent Nullable(Float32), " +
  "time_on_page Nullable(Float64), conversion_name String, revenue_cents Int64, currency String, country_code String, city String, " +
  "region String, device_type String, browser String, browser_version String, os String, os_version String, properties String, has_revenue UInt8";

const journeyVariants: Record<string, (chunk: Buffer) => Promise<void> | void> = {
  "json (today)": async (chunk) => {
    const rows = spoolLinesToRows(chunk);
    await insertJourneyRows(ch, chunk, rows, `j-${token++}`);
  },
  "RowBinary via file()": async (chunk) => {
    const { bytes, rows } = journeyBinary(w, chunk);
    writeFileSync(binFile, bytes);
    await ch.command(
      `INSERT INTO bench.journey_events (${JOURNEY_COLUMNS.join(", ")}) SETTINGS ${settingsClause(rows, `j-${token++}`)}, input_format_parallel_parsing = 0 ` +
        `SELECT * FROM file('${binFile}', 'RowBinary', '${JOURNEY_STRUCTURE.replaceAll("'", "\\'")}')`,
    );
    unlinkSync(binFile);
  },
};
const journeyEncode: Record<string, (chunk: Buffer) => unknown> = {
  "json (today)": (chunk) => spoolLinesToRows(chunk),
  "RowBinary via file()": (chunk) => journeyBinary(w, chunk),
};

// ---- rounds
const results: Record<string, number[]> = {};
const note = (key: string, us: number) => (results[key] ??= []).push(us);
for (let round = 0; round < ROUNDS; round++) {
  const order = Object.keys(clickVariants);
  if (round % 2) order.reverse();
  for (const name of order) {
    const sets = Array.from({ length: CLICK_INSERTS }, () => clickRows(CLICK_ROWS));
    if (clickEncode[name]) {
      const before = cpuUs();
      for (const rows of sets) clickEncode[name](rows);
      note(`clicks: encode only, ${name}`, (cpuUs() - before) / (CLICK_INSERTS * CLICK_ROWS));
    }
    const before = cpuUs();
    for (const rows of sets)
      await Promise.resolve(clickVariants[name](rows)).catch((e) => {
        throw new Error(`clicks ${name}: ${e}`);
      });
    note(`clicks: encode + insert, ${name}`, (cpuUs() - before) / (CLICK_INSERTS * CLICK_ROWS));
  }
  for (const name of order) {
    const chunk = journeyChunk(JOURNEY_ROWS);
    if (journeyEncode[name]) {
      const copy = Buffer.from(chunk);
      const before = cpuUs();
      journeyEncode[name](copy);
      note(`journey: encode only, ${name}`, (cpuUs() - before) / JOURNEY_ROWS);
    }
    const before = cpuUs();
    await Promise.resolve(journeyVariants[name](chunk)).catch((e) => {
      throw new Error(`journey ${name}: ${e}`);
    });
    note(`journey: encode + insert, ${name}`, (cpuUs() - before) / JOURNEY_ROWS);
  }
}

const [{ c }] = await ch.query<{ c: string }>("SELECT count() AS c FROM bench.clicks");
const [{ j }] = await ch.query<{ j: string }>("SELECT count() AS j FROM bench.journey_events");
const expectedClicks = ROUNDS * Object.keys(clickVariants).length * CLICK_INSERTS * CLICK_ROWS;
if (Number(c) !== expectedClicks || Number(j) !== ROUNDS * Object.keys(journeyVariants).length * JOURNEY_ROWS)
  throw new Error(`rows: clicks ${c}, journey ${j}`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [key, xs] of Object.entries(results)) {
  console.log(`${key.padEnd(60)} median ${median(xs).toFixed(2)} µs/row   rounds ${xs.map((x) => x.toFixed(2)).join(" ")}`);
}
await ch.close();
rmSync(dataDir, { recursive: true, force: true });
