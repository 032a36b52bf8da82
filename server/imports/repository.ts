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

/**
 * A Postgres array literal of texts, every element quoted: a batch's keys or ids go as one bound parameter
 * (`${textArray(keys)}::text[]`) instead of one per value, which Postgres parses and binds far faster.
 */
export const textArray = (values: readonly string[]) => `{${values.map((v) => `"${v.replace(/[\\"]/g, "\\$&")}"`).join(",")}}`;

/** The links earlier imports of this source made for these origin keys. */
export async function findOrigins(db: DbOrTx, accountId: string, source: string, keys: string[]): Promise<Map<string, string>> {
  if (!keys.length) return new Map();
  const rows = await db
    .select({ key: importOrigins.originKey, linkId: importOrigins.linkId })
    .from(importOrigins)
    .where(
      and(
        eq(importOrigins.accountId, accountId),
        eq(importOrigins.source, source),
        sql`${importOrigins.originKey} = any(${textArray(keys)}::text[])`,
      ),
    );
  return new Map(rows.map((r) => [r.key, r.linkId]));
}

/** The origins of one batch's new links, in one statement whatever their number (two array parameters). */
export async function insertOrigins(
  db: DbOrTx,
  o: { accountId: string; source: string; importId: string; rows: { originKey: string; linkId: string }[] },
) {
  if (!o.rows.length) return;
  await db.execute(sql`
    insert into import_origins (account_id, source, origin_key, link_id, import_id)
    select ${o.accountId}::uuid, ${o.source}, k.key, k.link_id, ${o.importId}::uuid
    from unnest(${textArray(o.rows.map((r) => r.originKey))}::text[], ${textArray(o.rows.map((r) => r.linkId))}::uuid[]) as k(key, link_id)
    on conflict do nothing`);
}

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
