// Writing spooled rows to ClickHouse: one insert per spool chunk, deduplicated by the chunk's token.
import type { Clickhouse } from "../storage/clickhouse/client";

export function clickhouseSink<T, Row extends object>(ch: Clickhouse, table: string, toRows: (records: T[]) => Promise<Row[]> | Row[]) {
  return async (records: T[], token: string) => {
    const rows = await toRows(records);
    await ch.insert(table, rows, {
      insert_deduplicate: 1,
      insert_deduplication_token: token,
      deduplicate_blocks_in_dependent_materialized_views: 1,
      // One block per chunk, so the token covers the whole chunk.
      max_insert_block_size: String(Math.max(rows.length, 1_048_576)),
    } as never);
  };
}
