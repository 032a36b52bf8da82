// The click pipeline's store access: the INSERT of one spool chunk of enriched clicks (inline in the
// flush worker's chDB session, or sent by the main thread to a ClickHouse server), and the daily
// visitor salts in Postgres that key the visitor hashes (enrich/visitor-hash.ts).
import { sql } from "drizzle-orm";
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { Postgres } from "../../storage/postgres/client";
import { chunkInsertSettings, insertHead } from "../repository";
import { CLICK_COLUMNS } from "./rows";

export { insertFromFileStatement, PLAIN_PATH } from "../repository";

/** The statement text for a session that takes the data inline; tokens are the spool's own, checked anyway. */
export function insertStatement(table: string, columns: readonly string[], rows: number, token: string): string {
  return `${insertHead(table, columns, rows, token)} FORMAT JSONCompactEachRow`;
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
