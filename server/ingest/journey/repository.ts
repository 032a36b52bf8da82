// The journey stream's ClickHouse insert: one spool chunk of JSONCompactEachRow rows into journey_events
// (and through its materialized views into every rollup), deduplicated by the chunk's token.
import type { Clickhouse } from "../../storage/clickhouse/client";
import { chunkInsertSettings } from "../repository";
import { JOURNEY_COLUMNS } from "./rows";

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
