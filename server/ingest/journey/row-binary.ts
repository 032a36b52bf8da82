// The journey spool's binary line and the embedded insert's RowBinary. With embedded chDB the request
// path writes each accepted batch as one line `rb1,<rows>,<base64 of the rows in RowBinary>\n`: base64
// has no newline byte, so the spool's framing (whole lines, a torn last line cut off at start-up) holds
// as for JSON, and the flusher turns a chunk into ClickHouse's input with one native base64 decode per
// line, no parse in JavaScript. ClickHouse reads the rows through file() (repository.ts): no text parse
// either. Lines of JSON (rows, or the older object form) may sit in the same chunk (a spool written by
// the previous version, or tests' durable appends); they are parsed and encoded here.
import type { JourneyRecord, JourneyRow } from "./record";
import { JOURNEY_COLUMNS, journeyRowOf } from "./rows";
import { RowBinaryReader, RowBinaryWriter } from "../../storage/clickhouse/row-binary";
import { chTime, chTimeMs } from "../../storage/clickhouse/format";

/** JOURNEY_COLUMNS' types as RowBinary carries them (a LowCardinality(String) column reads a String). */
export const JOURNEY_ROW_BINARY_STRUCTURE =
  "event_id UUID, received_at DateTime64(3, 'UTC'), timestamp DateTime64(3, 'UTC'), account_id UUID, link_id UUID, " +
  "visitor_id String, session_id String, event_type String, event_name String, page_url String, page_title String, " +
  "scroll_percent Nullable(Float32), time_on_page Nullable(Float64), conversion_name String, revenue_cents Int64, " +
  "currency String, country_code String, city String, region String, device_type String, browser String, " +
  "browser_version String, os String, os_version String, properties String, has_revenue UInt8";

/**
 * The line's prefix names the layout (JOURNEY_ROW_BINARY_STRUCTURE). A column added later gets a new
 * prefix, and this version's lines stay readable by the next.
 */
const LINE_PREFIX = Buffer.from("rb1,");
const NEWLINE = 0x0a;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;

const str = (v: unknown) => (typeof v === "string" ? v : "");
const num = (v: unknown) => (typeof v === "number" ? v : null);

// A batch's rows share their received time, and events sent without a time take it: parsed once.
let lastTime = "";
let lastMs = 0;
function timeMs(text: string): number {
  if (text !== lastTime) {
    lastMs = chTimeMs(text);
    lastTime = text;
  }
  return lastMs;
}

/**
 * One row in JOURNEY_COLUMNS order. A row of the previous version (no has_revenue, migration 0210) gets
 * the value the column's default would give it.
 */
export function writeJourneyRowBinary(w: RowBinaryWriter, r: JourneyRow) {
  w.uuid(str(r[0]));
  w.i64(timeMs(str(r[1])));
  w.i64(timeMs(str(r[2])));
  w.uuid(str(r[3]));
  w.uuid(str(r[4]));
  for (let i = 5; i <= 10; i++) w.string(str(r[i]));
  w.nullableF32(num(r[11]));
  w.nullableF64(num(r[12]));
  w.string(str(r[13]));
  const revenue = Number(r[14] ?? 0);
  w.i64(revenue);
  for (let i = 15; i <= 24; i++) w.string(str(r[i]));
  w.u8(r.length > 25 ? Number(r[25]) : r[7] === "conversion" || revenue !== 0 ? 1 : 0);
}

/** The rows of one binary line's RowBinary, as JourneyRow (times as chTime text, as toJourneyRow makes them). */
export function readJourneyRowsBinary(bytes: Buffer): JourneyRow[] {
  const r = new RowBinaryReader(bytes);
  const rows: JourneyRow[] = [];
  while (!r.done) {
    const row: JourneyRow = [r.uuid(), chTime(r.i64()), chTime(r.i64()), r.uuid(), r.uuid()];
    for (let i = 5; i <= 10; i++) row.push(r.string());
    row.push(r.nullableF32(), r.nullableF64(), r.string(), r.i64());
    for (let i = 15; i <= 24; i++) row.push(r.string());
    row.push(r.u8());
    rows.push(row);
  }
  return rows;
}

const lineWriter = new RowBinaryWriter(64 * 1024);

/**
 * The spool line of one accepted batch, or null when a record is not a row of this version (the object
 * form, a row of the previous version: tests and tools append those; the spool writes them as JSON).
 */
export function journeyBinaryLine(records: readonly JourneyRecord[]): Buffer | null {
  lineWriter.reset();
  for (const r of records) {
    if (!Array.isArray(r) || r.length !== JOURNEY_COLUMNS.length) return null;
    writeJourneyRowBinary(lineWriter, r);
  }
  const head = `rb1,${records.length},`;
  const data = lineWriter.bytes().toString("base64");
  const line = Buffer.allocUnsafe(head.length + data.length + 1);
  line.write(head, 0, "ascii");
  line.write(data, head.length, "ascii");
  line[line.length - 1] = NEWLINE;
  return line;
}

/** Where a binary line's count and data are, or null for a JSON line; throws on a layout this version does not know. */
function binaryLine(buf: Buffer, start: number, end: number): { rows: number; data: number } | null {
  if (buf[start] === OPEN_BRACKET) return null;
  const comma = buf.indexOf(COMMA, start + LINE_PREFIX.length);
  if (buf.compare(LINE_PREFIX, 0, LINE_PREFIX.length, start, start + LINE_PREFIX.length) !== 0 || comma < 0 || comma >= end) {
    throw new Error(`journey spool: unknown line format ${JSON.stringify(buf.toString("latin1", start, Math.min(end, start + 8)))}`);
  }
  return { rows: Number(buf.toString("latin1", start + LINE_PREFIX.length, comma)), data: comma + 1 };
}

function forEachLine(buf: Buffer, fn: (start: number, end: number) => void) {
  for (let start = 0; start < buf.length; ) {
    let end = buf.indexOf(NEWLINE, start);
    if (end < 0) end = buf.length;
    if (end > start) fn(start, end);
    start = end + 1;
  }
}

/** A chunk of spool lines as RowBinary rows in `w` (reset first); returns the row count. */
export function spoolChunkToRowBinary(buf: Buffer, w: RowBinaryWriter): number {
  w.reset();
  let rows = 0;
  forEachLine(buf, (start, end) => {
    const line = binaryLine(buf, start, end);
    if (line) {
      w.base64(buf, line.data, end);
      rows += line.rows;
      return;
    }
    for (const r of JSON.parse(buf.toString("utf8", start, end)) as JourneyRecord[]) {
      writeJourneyRowBinary(w, journeyRowOf(r));
      rows += 1;
    }
  });
  return rows;
}

/** A chunk of spool lines as records: binary lines as rows, JSON lines as they were written. */
export function parseJourneySpool(buf: Buffer): JourneyRecord[] {
  const records: JourneyRecord[] = [];
  forEachLine(buf, (start, end) => {
    const line = binaryLine(buf, start, end);
    const parsed = line
      ? readJourneyRowsBinary(Buffer.from(buf.toString("latin1", line.data, end), "base64"))
      : (JSON.parse(buf.toString("utf8", start, end)) as JourneyRecord[]);
    for (const r of parsed) records.push(r);
  });
  return records;
}
