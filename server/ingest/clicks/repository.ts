// The click pipeline's store access: the INSERT of one spool chunk of enriched clicks (inline in the
// flush worker's chDB session, or sent by the main thread to a ClickHouse server), and the daily
// visitor salts in Postgres that key the visitor hashes (enrich/visitor-hash.ts).
import { sql } from "drizzle-orm";
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { Postgres } from "../../storage/postgres/client";
import { chunkInsertSettings } from "../repository";
import { CLICK_COLUMNS } from "./rows";

/**
 * Parsing and the views' work stay on the calling thread (the flush worker, at background priority) instead of
 * ClickHouse's thread pools, whose threads run at normal priority.
 */
const IN_CALLING_THREAD = { input_format_parallel_parsing: 0, max_threads: 1, max_insert_threads: 1, parallel_view_processing: 0 };

const TOKEN = /^[A-Za-z0-9_.-]+$/;

/** The statement text for a session that takes the data inline; tokens are the spool's own, checked anyway. */
export function insertStatement(table: string, columns: readonly string[], rows: number, token: string): string {
  return `${insertHead(table, columns, rows, token)} FORMAT JSONCompactEachRow`;
}

function insertHead(table: string, columns: readonly string[], rows: number, token: string, more: Record<string, string> = {}): string {
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
 * raw insert takes text formats only). `file` is the worker's own, under the data directory, never a
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

/** The worker's rows (JSONCompactEachRow lines) sent to a ClickHouse server. */
export function insertClickLines(ch: Clickhouse, lines: string, rows: number, token: string): Promise<void> {
  return ch.insertRaw("clicks", CLICK_COLUMNS, "JSONCompactEachRow", Buffer.from(lines), chunkInsertSettings(rows, token));
}

/** The day's salt, created by whichever instance needs it first; every instance reads the same value. */
export async function ensureVisitorSalt(pg: Postgres, day: string, candidate: string): Promise<string> {
  await pg.query(sql`insert into visitor_salts (day, salt) values (${day}, ${candidate}) on conflict (day) do nothing`);
  const rows = await pg.query<{ salt: string }>(sql`select salt from visitor_salts where day = ${day}`);
  return rows[0].salt;
}

export async function findVisitorSalt(pg: Postgres, day: string): Promise<string | null> {
  const rows = await pg.query<{ salt: string }>(sql`select salt from visitor_salts where day = ${day}`);
  return rows[0]?.salt ?? null;
}

/** Old salts are deleted so that old hashes can no longer be recomputed from an address. */
export async function deleteVisitorSaltsBefore(pg: Postgres, day: string): Promise<void> {
  await pg.query(sql`delete from visitor_salts where day < ${day}`);
}
