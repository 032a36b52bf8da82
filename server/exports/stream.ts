// The body of a raw export: the rows read window by window (a run of hours holding about CHUNK_ROWS
// rows, from an hourly count made first), each as ClickHouse formatted it and passed on as it arrives,
// pulled only as fast as the client reads, gzipped on the way when asked. A single hour with more rows than a window is read in chunks by (timestamp, id) cursor.
// Each read touches about its own rows: a cursor over the whole range would make ClickHouse sort
// everything after the cursor again for every chunk.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Cursor, ExportFormat } from "./model";
import { chTime, countByHour, readChunk, streamChunk, type ExportScope } from "./queries";
import { HOUR_MS } from "../reports/period";

/** Rows per ClickHouse read: a few MB of text, whatever the size of the whole export. */
export const CHUNK_ROWS = 50_000;

/** The bytes of the export: the CSV header (when CSV), then every row of the scope, window by window. */
export function exportBody(
  ch: Clickhouse,
  scope: ExportScope,
  windows: ExportWindow[],
  format: ExportFormat,
  header: string | null,
  gzip: boolean,
) {
  const chunks = readWindows(ch, scope, windows, format, header);
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await chunks.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
  return gzip ? body.pipeThrough(new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>) : body;
}

export interface ExportWindow {
  /** Unix ms, start inclusive, end exclusive. */
  startMs: number;
  endMs: number;
  rows: number;
}

/** Consecutive hours packed into windows of at most `max` rows (an hour with more is a window alone). */
export function planWindows(hours: { hour: number; rows: number }[], max: number): ExportWindow[] {
  const out: ExportWindow[] = [];
  for (const h of hours) {
    const startMs = h.hour * 1000;
    const last = out.at(-1);
    if (last && last.rows + h.rows <= max) {
      last.endMs = startMs + HOUR_MS;
      last.rows += h.rows;
    } else out.push({ startMs, endMs: startMs + HOUR_MS, rows: h.rows });
  }
  return out;
}

/** The windows of an export, counted before its answer starts (a store failure is then still a 503). */
export async function planExport(ch: Clickhouse, scope: ExportScope): Promise<ExportWindow[]> {
  return planWindows(await countByHour(ch, scope), CHUNK_ROWS);
}

async function* readWindows(ch: Clickhouse, scope: ExportScope, windows: ExportWindow[], format: ExportFormat, header: string | null) {
  if (header !== null) yield Buffer.from(header);
  for (const [i, w] of windows.entries()) {
    // The windows tile the range, so that a row stored after the count (a late flush) is read too: the
    // first starts at the range's start, each ends where the next starts, the last at the range's end.
    const part: ExportScope = {
      ...scope,
      from: i === 0 ? scope.from : chTime(new Date(w.startMs).toISOString()),
      to: i === windows.length - 1 ? scope.to : chTime(new Date(windows[i + 1].startMs).toISOString()),
    };
    if (w.rows <= CHUNK_ROWS) {
      yield* streamChunk(ch, part, format, null);
      continue;
    }
    yield* readByCursor(ch, part, format);
  }
}

async function* readByCursor(ch: Clickhouse, scope: ExportScope, format: ExportFormat) {
  let after = scope.after;
  for (;;) {
    const bytes = await readChunk(ch, { ...scope, after }, format, CHUNK_ROWS);
    if (bytes.length === 0) return;
    yield bytes;
    after = lastRowCursor(bytes, format);
  }
}

const RECORD_START: Record<ExportFormat, RegExp> = {
  // Every row starts with its id and time; inside a quoted CSV cell a quote is doubled, so `"<uuid>","`
  // right after a line break can only be a row's start.
  csv: /^"([0-9a-f-]{36})","([0-9T:.Z-]{24})"/,
  ndjson: /^\{"(?:click|event)_id":"([0-9a-f-]{36})","timestamp":"([0-9T:.Z-]{24})"/,
};

/** The (timestamp, id) of the last row of a chunk. */
export function lastRowCursor(bytes: Buffer, format: ExportFormat): Cursor {
  const re = RECORD_START[format];
  let end = bytes.length - 1;
  for (;;) {
    const lineBreak = bytes.lastIndexOf(0x0a, end - 1);
    const m = re.exec(bytes.subarray(lineBreak + 1, lineBreak + 1 + 96).toString("latin1"));
    if (m) return { id: m[1], timestamp: m[2] };
    if (lineBreak < 0) throw new Error("export chunk without a row start");
    end = lineBreak;
  }
}
