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

const TOKEN = /^[A-Za-z0-9_.-]+$/;

/** The statement text for a session that takes the data inline; tokens are the spool's own, checked anyway. */
export function insertStatement(table: string, columns: readonly string[], rows: number, token: string): string {
  if (!TOKEN.test(token)) throw new Error(`unexpected deduplication token ${JSON.stringify(token)}`);
  const settings = Object.entries(insertSettings(rows, token)).map(([k, v]) => `${k} = ${typeof v === "number" ? v : `'${v}'`}`).join(", ");
  return `INSERT INTO ${table} (${columns.join(", ")}) SETTINGS ${settings} FORMAT JSONCompactEachRow`;
}
