// The INSERT of one spool chunk of clicks, as the flush worker's session takes it (data inline).
import { chunkInsertSettings } from "../../ingest/sinks";

/**
 * Parsing and the views' work stay on the calling thread (the flush worker, at background priority) instead of
 * ClickHouse's thread pools, whose threads run at normal priority.
 */
const IN_CALLING_THREAD = { input_format_parallel_parsing: 0, max_threads: 1, max_insert_threads: 1, parallel_view_processing: 0 };

const TOKEN = /^[A-Za-z0-9_.-]+$/;

/** The statement text for a session that takes the data inline; tokens are the spool's own, checked anyway. */
export function insertStatement(table: string, columns: readonly string[], rows: number, token: string): string {
  if (!TOKEN.test(token)) throw new Error(`unexpected deduplication token ${JSON.stringify(token)}`);
  const settings = Object.entries({ ...chunkInsertSettings(rows, token), ...IN_CALLING_THREAD })
    .map(([k, v]) => `${k} = ${typeof v === "number" ? v : `'${v}'`}`)
    .join(", ");
  return `INSERT INTO ${table} (${columns.join(", ")}) SETTINGS ${settings} FORMAT JSONCompactEachRow`;
}
