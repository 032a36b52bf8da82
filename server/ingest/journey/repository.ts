// The journey stream's ClickHouse insert: one spool chunk into journey_events (and through its
// materialized views into every rollup), deduplicated by the chunk's token. Embedded chDB reads the
// chunk's RowBinary rows from a file (row-binary.ts); a ClickHouse server gets JSONCompactEachRow text.
import type { Clickhouse } from "../../storage/clickhouse/client";
import { chunkInsertSettings, insertFromFileStatement } from "../repository";
import { JOURNEY_COLUMNS } from "./rows";
import { JOURNEY_ROW_BINARY_STRUCTURE } from "./row-binary";

function insertSettings(dedupToken: string, rows: number) {
  return {
    ...chunkInsertSettings(rows, dedupToken),
    // Parallel parsing first scans the whole chunk for row boundaries on another thread: about 10% more
    // CPU per row, which on 2 cores the HTTP side needs.
    input_format_parallel_parsing: 0,
    // Rows of the previous version end before has_revenue: its default fills it.
    input_format_json_compact_allow_variable_number_of_columns: 1,
  };
}

export function insertJourneyRows(ch: Clickhouse, text: Buffer, rows: number, dedupToken: string): Promise<void> {
  return ch.insertRaw("journey_events", JOURNEY_COLUMNS, "JSONCompactEachRow", text, insertSettings(dedupToken, rows));
}

/** Embedded chDB: the rows in `file` (RowBinary, JOURNEY_ROW_BINARY_STRUCTURE), under the chunk's token. */
export function insertJourneyRowBinaryFile(ch: Clickhouse, file: string, rows: number, dedupToken: string): Promise<void> {
  return ch.command(
    insertFromFileStatement(ch.table("journey_events"), JOURNEY_COLUMNS, JOURNEY_ROW_BINARY_STRUCTURE, file, rows, dedupToken),
  );
}
