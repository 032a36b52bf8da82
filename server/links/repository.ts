// Postgres access for links (the only file of this feature that touches drizzle).
import { and, asc, desc, eq, gt, gte, isNotNull, isNull, lt, lte, sql, type SQL, arrayOverlaps, count, inArray } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { domains, linkCounts, links, purgedLinks } from "../storage/postgres/schema";
import type { Db, DbOrTx } from "../storage/postgres/client";
import type { ListLinksInput, SortField } from "./model";

export type LinkRow = typeof links.$inferSelect;
export type NewLink = typeof links.$inferInsert;

export const insertLinks = (db: DbOrTx, rows: NewLink[]) => db.insert(links).values(rows).returning();

/** A live (not deleted) link of the account: the one place that answers "not found" and "not yours" alike. */
export const findLink = async (db: DbOrTx, accountId: string, id: string) =>
  (
    await db
      .select()
      .from(links)
      .where(and(eq(links.id, id), eq(links.accountId, accountId), isNull(links.deletedAt)))
  )[0];

export const findLinkIncludingDeleted = async (db: DbOrTx, accountId: string, id: string) =>
  (
    await db
      .select()
      .from(links)
      .where(and(eq(links.id, id), eq(links.accountId, accountId)))
  )[0];

export const updateLinkRow = async (db: DbOrTx, id: string, patch: Partial<NewLink>) =>
  (
    await db
      .update(links)
      .set({ ...patch, updatedAt: new Date() })
      .where(eq(links.id, id))
      .returning()
  )[0];

/** Resolution for the redirect: by code on the default domain (null) or a custom domain. */
export const findLinkByCode = async (db: DbOrTx, domainId: string | null, code: string) =>
  (
    await db
      .select()
      .from(links)
      .where(and(eq(links.shortCode, code), domainId ? eq(links.domainId, domainId) : isNull(links.domainId)))
  )[0];

/** Removes links deleted before `before`, leaving a tombstone each; drops tombstones older than `forgetBefore`. */
export async function purgeDeletedBefore(db: Db, before: Date, forgetBefore: Date) {
  return db.transaction(async (tx) => {
    const gone = await tx
      .delete(links)
      .where(and(isNotNull(links.deletedAt), lt(links.deletedAt, before)))
      .returning({ id: links.id, accountId: links.accountId });
    for (let i = 0; i < gone.length; i += 10_000)
      await tx
        .insert(purgedLinks)
        .values(gone.slice(i, i + 10_000))
        .onConflictDoNothing();
    await tx.delete(purgedLinks).where(lt(purgedLinks.purgedAt, forgetBefore));
    return gone.length;
  });
}

export const wasPurged = async (db: DbOrTx, accountId: string, id: string) =>
  (
    await db
      .select({ id: purgedLinks.id })
      .from(purgedLinks)
      .where(and(eq(purgedLinks.id, id), eq(purgedLinks.accountId, accountId)))
  ).length > 0;

/**
 * original_url sorts in byte order (the embedded store's collation, on a server too), by the 600-character
 * prefix that links_live_url_idx holds, then the whole URL; the other fields by their column.
 */
const LINK_URL_ORDER = [sql`left(${links.originalUrl}, 600) collate "C"`, sql`${links.originalUrl} collate "C"`];
const SORT_KEYS: Record<SortField, (AnyPgColumn | SQL)[]> = {
  created_at: [links.createdAt],
  updated_at: [links.updatedAt],
  title: [links.title],
  short_code: [links.shortCode],
  original_url: LINK_URL_ORDER,
  last_accessed_at: [links.lastAccessedAt],
  expires_at: [links.expiresAt],
};

/** The account's live links, kept exact by the triggers of migration 0003. */
export const liveLinkCount = async (db: DbOrTx, accountId: string) =>
  (await db.select({ n: linkCounts.live }).from(linkCounts).where(eq(linkCounts.accountId, accountId)))[0]?.n ?? 0;

export async function listLinkRows(db: DbOrTx, accountId: string, q: ListLinksInput & { tagList: string[] }) {
  const where: (SQL | undefined)[] = [eq(links.accountId, accountId), isNull(links.deletedAt)];
  const unfiltered = where.length;
  if (q.search) {
    const pattern = `%${q.search.replace(/[\\%_]/g, (c) => "\\" + c)}%`;
    // One expression, matching the trigram index links_search_idx.
    where.push(sql`(${links.originalUrl} || ' ' || coalesce(${links.title}, '') || ' ' || ${links.shortCode}) ilike ${pattern}`);
  }
  if (q.tagList.length) where.push(arrayOverlaps(links.tags, q.tagList));
  if (q.is_active !== undefined) where.push(eq(links.isActive, q.is_active));
  if (q.has_password !== undefined) where.push(q.has_password ? isNotNull(links.passwordHash) : isNull(links.passwordHash));
  if (q.domain_id) where.push(eq(links.domainId, q.domain_id));
  if (q.domain)
    where.push(
      inArray(
        links.domainId,
        db
          .select({ id: domains.id })
          .from(domains)
          .where(and(eq(domains.accountId, accountId), eq(domains.name, q.domain.toLowerCase()))),
      ),
    );
  if (q.created_after) where.push(gte(links.createdAt, new Date(q.created_after)));
  if (q.created_before) where.push(lte(links.createdAt, new Date(q.created_before)));
  if (q.last_active_after) where.push(gt(links.lastAccessedAt, new Date(q.last_active_after)));
  const page = q.page ?? 1;
  const perPage = q.per_page ?? 20;
  // id breaks ties in the same direction, so the links_live_* indexes give the order in one scan.
  const dir = q.sort_order === "asc" ? asc : desc;
  const order = [...SORT_KEYS[q.sort_by ?? "created_at"], links.id].map((key) => dir(key));
  const condition = and(...where);
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(links)
      .where(condition)
      .orderBy(...order)
      .limit(perPage)
      .offset((page - 1) * perPage),
    where.length === unfiltered
      ? liveLinkCount(db, accountId)
      : db
          .select({ n: count() })
          .from(links)
          .where(condition)
          .then(([{ n }]) => n),
  ]);
  return { rows, total, page, perPage };
}

/** Deleted links still inside the recovery window, most recently deleted first (the console's trash). */
export async function listDeletedLinkRows(db: DbOrTx, accountId: string, since: Date, page: number, perPage: number) {
  const condition = and(eq(links.accountId, accountId), gt(links.deletedAt, since));
  const [rows, [{ n }]] = await Promise.all([
    db
      .select()
      .from(links)
      .where(condition)
      .orderBy(desc(links.deletedAt), desc(links.id))
      .limit(perPage)
      .offset((page - 1) * perPage),
    db.select({ n: count() }).from(links).where(condition),
  ]);
  return { rows, total: n };
}
