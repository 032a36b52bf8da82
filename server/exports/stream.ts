// The body of a raw export: chunks of rows read one after another by cursor, each as ClickHouse
// formatted it, pulled only as fast as the client reads (the stream holds the chunk being sent and
// the next one), gzipped on the way when asked.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Cursor, ExportFormat } from "./model";
import { readChunk, type ExportScope } from "./queries";

/** Rows per ClickHouse read: a few MB of text, whatever the size of the whole export. */
export const CHUNK_ROWS = 50_000;

/** The bytes of the export: the CSV header (when CSV), then every row of the scope, chunk by chunk. */
export function exportBody(ch: Clickhouse, scope: ExportScope, format: ExportFormat, header: string | null, gzip: boolean) {
  const chunks = readChunks(ch, scope, format, header);
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

async function* readChunks(ch: Clickhouse, scope: ExportScope, format: ExportFormat, header: string | null) {
  if (header !== null) yield Buffer.from(header);
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
