// The journey stream's entry for the spool. With embedded chDB the request path writes binary lines
// (row-binary.ts) and each chunk goes to ClickHouse as RowBinary through a file, one insert per chunk
// under the chunk's token; with a ClickHouse server the lines are JSON rows, turned into
// JSONCompactEachRow in place (rows.ts). Either flusher reads the other's lines too (a spool written
// before an upgrade, or before a move to or from a server).
import { join } from "node:path";
import type { Clickhouse } from "../../storage/clickhouse/client";
import { RowBinaryWriter } from "../../storage/clickhouse/row-binary";
import type { LineFormat, StreamEntry } from "../streams";
import { missingById } from "../repository";
import { openInsertFileDir, withInsertFile } from "../insert-files";
import type { JourneyRecord } from "./record";
import { journeyEventId, journeyRowOf, spoolLinesToRows } from "./rows";
import { journeyBinaryLine, parseJourneySpool, spoolChunkToRowBinary, writeJourneyRowBinary } from "./row-binary";
import { insertJourneyRowBinaryFile, insertJourneyRows } from "./repository";

export interface JourneyStreamOptions {
  /**
   * The data directory: with embedded chDB, the RowBinary files go to `clickhouse/journey-insert-files`
   * under it. Unset (or a path file() would misread): JSON lines and text inserts, as with a server.
   */
  dataDir?: string;
}

type JourneyStream = Required<Pick<StreamEntry<JourneyRecord>, "sink" | "sinkRaw" | "reconcile" | "maxChunkBytes">> &
  Pick<StreamEntry<JourneyRecord>, "appendLine"> &
  Pick<LineFormat<JourneyRecord>, "parse">;

export function journeyStream(ch: Clickhouse, opts: JourneyStreamOptions = {}): JourneyStream {
  const fileDir = ch.kind === "chdb" && opts.dataDir ? openInsertFileDir(join(opts.dataDir, "clickhouse", "journey-insert-files")) : null;
  return fileDir ? binaryStream(ch, fileDir) : textStream(ch);
}

const reconcile = (ch: Clickhouse) => missingById<JourneyRecord>(ch, "journey_events", "event_id", "UUID", journeyEventId);
// Large chunks: every ClickHouse insert has a fixed cost (one pipeline per materialized view), and
// journey_events' rollups make it high enough that 16 MB (~46,000 events) pays off.
const MAX_CHUNK_BYTES = 16 * 1024 * 1024;

function binaryStream(ch: Clickhouse, fileDir: string): JourneyStream {
  const writer = new RowBinaryWriter(1 << 20);
  const insert = (rows: number, token: string) =>
    withInsertFile(fileDir, writer.bytes(), (file) => insertJourneyRowBinaryFile(ch, file, rows, token));
  return {
    appendLine: journeyBinaryLine,
    parse: parseJourneySpool,
    /** The chunk reconciled after a crash. */
    sink: async (records, token) => {
      if (records.length === 0) return;
      writer.reset();
      for (const r of records) writeJourneyRowBinary(writer, journeyRowOf(r));
      await insert(records.length, token);
    },
    sinkRaw: async (bytes, token) => {
      const rows = spoolChunkToRowBinary(bytes, writer);
      if (rows > 0) await insert(rows, token);
      return rows;
    },
    reconcile: reconcile(ch),
    maxChunkBytes: MAX_CHUNK_BYTES,
  };
}

function textStream(ch: Clickhouse): JourneyStream {
  /** Records as JSON rows: the chunk reconciled after a crash, and chunks holding the object form or binary lines. */
  const sink = async (records: JourneyRecord[], dedupToken: string) => {
    if (records.length === 0) return;
    const text = records.map((r) => JSON.stringify(journeyRowOf(r))).join("\n");
    await insertJourneyRows(ch, Buffer.from(text), records.length, dedupToken);
  };
  return {
    parse: parseJourneySpool,
    sink,
    /** The chunk's bytes as the spool wrote them. */
    sinkRaw: async (bytes, dedupToken) => {
      const rows = spoolLinesToRows(bytes);
      if (rows < 0) {
        const records = parseJourneySpool(bytes);
        await sink(records, dedupToken);
        return records.length;
      }
      if (rows > 0) await insertJourneyRows(ch, bytes, rows, dedupToken);
      return rows;
    },
    reconcile: reconcile(ch),
    maxChunkBytes: MAX_CHUNK_BYTES,
  };
}
