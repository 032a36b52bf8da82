// The ClickHouse side both spooled streams share: one insert per spool chunk, deduplicated by the
// chunk's token, and the crash check that finds which records of a chunk are stored already.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { ClickhouseTable } from "../storage/clickhouse/tables";

/** An insert of one spool chunk: deduplicated by the chunk's token, in the table and its views alike. */
export function chunkInsertSettings(rows: number, token: string) {
  return {
    insert_deduplicate: 1,
    insert_deduplication_token: token,
    deduplicate_blocks_in_dependent_materialized_views: 1,
    // One block per chunk, so the token covers the whole chunk.
    max_insert_block_size: Math.max(rows, 1_048_576),
  };
}

/**
 * Parsing and the views' work stay on the calling thread (the click flush worker, at background
 * priority; the journey flusher's one insert at a time) instead of ClickHouse's thread pools, whose
 * threads run at normal priority.
 */
const IN_CALLING_THREAD = { input_format_parallel_parsing: 0, max_threads: 1, max_insert_threads: 1, parallel_view_processing: 0 };

const TOKEN = /^[A-Za-z0-9_.-]+$/;

/** `INSERT INTO table (columns) SETTINGS <the chunk's>`; tokens are the spool's own, checked anyway. */
export function insertHead(
  table: string,
  columns: readonly string[],
  rows: number,
  token: string,
  more: Record<string, string> = {},
): string {
  if (!TOKEN.test(token)) throw new Error(`unexpected deduplication token ${JSON.stringify(token)}`);
  const settings = Object.entries({ ...chunkInsertSettings(rows, token), ...IN_CALLING_THREAD, ...more })
    .map(([k, v]) => `${k} = ${typeof v === "number" ? v : `'${v}'`}`)
    .join(", ");
  return `INSERT INTO ${table} (${columns.join(", ")}) SETTINGS ${settings}`;
}

/** An absolute path without quotes, backslashes or file()'s glob characters (`*?{}[]`). */
export const PLAIN_PATH = /^\/[A-Za-z0-9_.\/-]+$/;

/**
 * The embedded insert of a chunk's RowBinary rows, which ClickHouse reads from `file` itself (chDB's
 * raw insert takes text formats only). `file` is the flusher's own, under the data directory, never a
 * path from a request. `deduplicate_insert_select = 'force_enable'`: the chunk's token applies to an
 * INSERT … SELECT only while ClickHouse deems the SELECT's result stable; should a version stop
 * deeming a file's rows so, the insert fails (and the spool retries it) rather than storing a replay twice.
 */
export function insertFromFileStatement(
  table: string,
  columns: readonly string[],
  structure: string,
  file: string,
  rows: number,
  token: string,
): string {
  if (!PLAIN_PATH.test(file)) throw new Error(`unexpected insert file path ${JSON.stringify(file)}`);
  const head = insertHead(table, columns, rows, token, { deduplicate_insert_select: "force_enable" });
  return `${head} SELECT * FROM file('${file}', 'RowBinary', '${structure.replaceAll("'", "\\'")}', 'none')`;
}

/** A sink that inserts each chunk's records as rows of `table` (JSONEachRow). */
export function clickhouseSink<T, Row extends object>(
  ch: Clickhouse,
  table: ClickhouseTable,
  toRows: (records: T[]) => Promise<Row[]> | Row[],
) {
  return async (records: T[], token: string) => {
    const rows = await toRows(records);
    await ch.insert(table, rows, chunkInsertSettings(rows.length, token) as never);
  };
}

/**
 * Ids per reconcile query. A chunk can hold tens of thousands of records; all their ids in one parameter
 * would pass a server's 1 MiB URL limit, or its 128 KiB limit on one multipart value
 * (http_max_field_value_size). A thousand UUIDs are about 40 KB, which the client sends in the body.
 */
const IDS_PER_QUERY = 1_000;

/** Keeps the records whose id is not in `table` yet (for the spool's reconcile after a crash). */
export function missingById<T>(ch: Clickhouse, table: ClickhouseTable, column: string, type: string, idOf: (record: T) => string | number) {
  return async (records: T[]): Promise<T[]> => {
    if (records.length === 0) return records;
    const present = new Set<string>();
    for (let i = 0; i < records.length; i += IDS_PER_QUERY) {
      const stored = await ch.query<{ id: string }>(
        `SELECT toString(${column}) AS id FROM ${ch.table(table)} WHERE ${column} IN {ids:Array(${type})}`,
        { ids: records.slice(i, i + IDS_PER_QUERY).map(idOf) },
      );
      for (const r of stored) present.add(r.id);
    }
    return records.filter((r) => !present.has(String(idOf(r))));
  };
}
