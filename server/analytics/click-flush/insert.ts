// The INSERT of one spool chunk of clicks: deduplicated by the chunk's token, here and in the views.
export function insertSettings(rows: number, token: string): Record<string, string | number> {
  return {
    insert_deduplicate: 1,
    insert_deduplication_token: token,
    deduplicate_blocks_in_dependent_materialized_views: 1,
    // One block per chunk, so the token covers the whole chunk.
    max_insert_block_size: Math.max(rows, 1_048_576),
  };
}

/**
 * Parsing and the views' work stay on the calling thread (the niced flush worker) instead of
 * ClickHouse's thread pools, whose threads run at normal priority.
 */
const IN_CALLING_THREAD = { input_format_parallel_parsing: 0, max_threads: 1, max_insert_threads: 1, parallel_view_processing: 0 };

const TOKEN = /^[A-Za-z0-9_.-]+$/;

/** The statement text for a session that takes the data inline; tokens are the spool's own, checked anyway. */
export function insertStatement(table: string, columns: readonly string[], rows: number, token: string): string {
  if (!TOKEN.test(token)) throw new Error(`unexpected deduplication token ${JSON.stringify(token)}`);
  const settings = Object.entries({ ...insertSettings(rows, token), ...IN_CALLING_THREAD }).map(([k, v]) => `${k} = ${typeof v === "number" ? v : `'${v}'`}`).join(", ");
  return `INSERT INTO ${table} (${columns.join(", ")}) SETTINGS ${settings} FORMAT JSONCompactEachRow`;
}
