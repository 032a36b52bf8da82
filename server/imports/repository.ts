// Postgres and ClickHouse access of imports (the only file of this feature with SQL).
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Db, DbOrTx } from "../storage/postgres/client";
import { importOrigins, imports } from "../storage/postgres/schema";

export type ImportRow = typeof imports.$inferSelect;
export type NewImport = typeof imports.$inferInsert;

export const insertImport = async (db: DbOrTx, row: NewImport) => (await db.insert(imports).values(row).returning())[0];

export const findImport = async (db: DbOrTx, accountId: string, id: string) =>
  (
    await db
      .select()
      .from(imports)
      .where(and(eq(imports.id, id), eq(imports.accountId, accountId)))
      .limit(1)
  )[0];

export const listImports = (db: DbOrTx, accountId: string, limit: number) =>
  db.select().from(imports).where(eq(imports.accountId, accountId)).orderBy(desc(imports.createdAt)).limit(limit);

/** Of these imports (those whose file this instance holds), the unfinished ones, oldest first: the job's work. */
export const pendingImports = (db: Db, ids: string[]) =>
  ids.length
    ? db
        .select()
        .from(imports)
        .where(and(inArray(imports.id, ids), sql`${imports.status} IN ('queued', 'running')`))
        .orderBy(asc(imports.createdAt))
    : Promise.resolve([]);

/** The import's row locked for one batch: its position is the truth, whatever another instance did. */
export const lockImport = async (tx: DbOrTx, id: string) =>
  (await tx.select().from(imports).where(eq(imports.id, id)).for("update").limit(1))[0];

export const updateImport = (db: DbOrTx, id: string, patch: Partial<NewImport>) => db.update(imports).set(patch).where(eq(imports.id, id));

/** The links earlier imports of this source made for these origin keys. */
export async function findOrigins(db: DbOrTx, accountId: string, source: string, keys: string[]): Promise<Map<string, string>> {
  if (!keys.length) return new Map();
  const rows = await db
    .select({ key: importOrigins.originKey, linkId: importOrigins.linkId })
    .from(importOrigins)
    .where(and(eq(importOrigins.accountId, accountId), eq(importOrigins.source, source), inArray(importOrigins.originKey, keys)));
  return new Map(rows.map((r) => [r.key, r.linkId]));
}

export const insertOrigins = (db: DbOrTx, rows: (typeof importOrigins.$inferInsert)[]) =>
  rows.length ? db.insert(importOrigins).values(rows).onConflictDoNothing() : Promise.resolve();

export interface ImportedClickRow {
  account_id: string;
  link_id: string;
  source: string;
  click_key: string;
  timestamp: string;
  referrer: string;
  country_code: string;
  device_type: string;
  browser: string;
  os: string;
  is_bot: number;
  import_id: string;
}

/** One batch's clicks; the token makes a batch replayed after a crash a no-op. */
export const insertImportedClicks = (ch: Clickhouse, rows: ImportedClickRow[], token: string) =>
  rows.length ? ch.insert("imported_clicks", rows, { insert_deduplication_token: token }) : Promise.resolve();

/** Imported clicks per link (deduplicated by the click's key in its source). */
export async function importedClickCounts(ch: Clickhouse, accountId: string, linkIds: string[]): Promise<Map<string, number>> {
  if (!linkIds.length) return new Map();
  const rows = await ch.query<{ link_id: string; clicks: string }>(
    `SELECT link_id, uniqExact(source, click_key) AS clicks FROM ${ch.table("imported_clicks")}
     WHERE account_id = {account:UUID} AND link_id IN {ids:Array(UUID)} GROUP BY link_id`,
    { account: accountId, ids: linkIds },
  );
  return new Map(rows.map((r) => [r.link_id, Number(r.clicks)]));
}

/** A day of imported aggregates (table imported_daily, migration 0265). */
export interface ImportedDailyRow {
  account_id: string;
  link_id: string;
  source: string;
  kind: string;
  day: string;
  dimension: string;
  detail: string;
  visitors: number;
  visits: number;
  pageviews: number;
  bounces: number;
  visit_duration: number;
  events: number;
  import_id: string;
  imported_at: string;
}

/** Imported days; a row with the same link, kind, day and dimension as an earlier one replaces it. */
export const insertImportedDaily = (ch: Clickhouse, rows: ImportedDailyRow[]) =>
  rows.length ? ch.insert("imported_daily", rows) : Promise.resolve();
