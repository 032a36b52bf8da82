// Postgres access for links (the only file of this feature that touches drizzle).
import {
  and,
  asc,
  desc,
  eq,
  gt,
  gte,
  isNotNull,
  isNull,
  lt,
  lte,
  sql,
  type SQL,
  arrayOverlaps,
  count,
  getTableColumns,
  inArray,
} from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { linkCounts, linkDestinations, links, purgedLinks, type LinkRuleJson, type LinkVariantJson } from "../storage/postgres/schema";
import type { Db, DbOrTx, Postgres } from "../storage/postgres/client";
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

/**
 * Keeps the destination a link had before a change of url. Stamped when written, under the row's lock
 * (now() would be the transaction's start, which need not follow the order the lock gave the changes).
 */
export const insertDestinationChange = (db: DbOrTx, linkId: string, previousUrl: string, newUrl: string) =>
  db.insert(linkDestinations).values({ linkId, previousUrl, newUrl, changedAt: sql`clock_timestamp()` });

/** The link's destination as committed, its row locked until the transaction ends (a change of url reads what it replaces). */
export const lockLinkDestination = async (tx: DbOrTx, id: string): Promise<string | undefined> =>
  (await tx.select({ url: links.originalUrl }).from(links).where(eq(links.id, id)).for("update"))[0]?.url;

/** A link's destination changes, newest first. */
export const listDestinationChanges = (db: DbOrTx, linkId: string) =>
  db
    .select()
    .from(linkDestinations)
    .where(eq(linkDestinations.linkId, linkId))
    .orderBy(desc(linkDestinations.changedAt), desc(linkDestinations.id));

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

/** The list's filters, with `domain` (a name) resolved by the domains feature: its id, or null when the account has none of that name. */
export type ListFilter = ListLinksInput & { tagList: string[]; namedDomainId?: string | null };

/** The list's filters as one condition; `unfiltered` when only the account's live links are asked for. */
function listCondition(accountId: string, q: ListFilter) {
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
  if (q.namedDomainId !== undefined) where.push(q.namedDomainId === null ? sql`false` : eq(links.domainId, q.namedDomainId));
  if (q.created_after) where.push(gte(links.createdAt, new Date(q.created_after)));
  if (q.created_before) where.push(lte(links.createdAt, new Date(q.created_before)));
  if (q.last_active_after) where.push(gt(links.lastAccessedAt, new Date(q.last_active_after)));
  return { condition: and(...where), unfiltered: where.length === unfiltered };
}

/** How many links meet the list's filters (the kept live count when there are none). */
const countListed = (db: DbOrTx, accountId: string, condition: SQL | undefined, unfiltered: boolean) =>
  unfiltered
    ? liveLinkCount(db, accountId)
    : db
        .select({ n: count() })
        .from(links)
        .where(condition)
        .then(([{ n }]) => n);

/**
 * One page of the links meeting the list's filters ordered by `counts` (a link absent from it counts 0;
 * sort_by=clicks_7d), ties newest first, and how many meet the filters. The counts join in Postgres as
 * two array parameters, so only the page's rows come back, however many links the filters match.
 */
export async function listLinkRowsByCount(db: DbOrTx, accountId: string, q: ListFilter, counts: Map<string, number>) {
  const { condition, unfiltered } = listCondition(accountId, q);
  const page = q.page ?? 1;
  const perPage = q.per_page ?? 20;
  const n = sql`coalesce(c.n, 0)`;
  const byCount = q.sort_order === "asc" ? asc(n) : desc(n);
  const [rows, total] = await Promise.all([
    db
      .select(getTableColumns(links))
      .from(links)
      .leftJoin(
        sql`unnest(${`{${[...counts.keys()].join(",")}}`}::uuid[], ${`{${[...counts.values()].join(",")}}`}::bigint[]) as c(id, n)`,
        sql`c.id = ${links.id}`,
      )
      .where(condition)
      .orderBy(byCount, desc(links.createdAt), desc(links.id))
      .limit(perPage)
      .offset((page - 1) * perPage),
    countListed(db, accountId, condition, unfiltered),
  ]);
  return { rows, total, page, perPage };
}

export async function listLinkRows(db: DbOrTx, accountId: string, q: ListFilter) {
  const { condition, unfiltered } = listCondition(accountId, q);
  const page = q.page ?? 1;
  const perPage = q.per_page ?? 20;
  // id breaks ties in the same direction, so the links_live_* indexes give the order in one scan.
  const dir = q.sort_order === "asc" ? asc : desc;
  const order = [...SORT_KEYS[(q.sort_by as SortField | undefined) ?? "created_at"], links.id].map((key) => dir(key));
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(links)
      .where(condition)
      .orderBy(...order)
      .limit(perPage)
      .offset((page - 1) * perPage),
    countListed(db, accountId, condition, unfiltered),
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

export interface CountedClicks {
  id: string;
  /** Of the clicks asked for, how many the limit allowed. */
  granted: number;
  counted: number;
  max: number;
}

/**
 * Counts human clicks of limited links, several links per statement: each link's count moves up by
 * what its limit still allows. The row lock orders concurrent instances, so the count is exact.
 * With `lease`, a link is granted more than asked while far from its limit (a twentieth of what
 * remains, at most 2,000): the caller serves those from memory and gives back what it does not use.
 */
/**
 * Counts the asked clicks of limited links. With `leaseCaps` (embedded PGlite), a link far from its limit
 * is granted more than asked: a lease of a twentieth of what remains, at most its cap.
 */
export async function countLimitedClicks(
  pg: Postgres,
  asked: Map<string, number>,
  leaseCaps?: Map<string, number>,
): Promise<CountedClicks[]> {
  if (asked.size === 0) return [];
  const values = sql.join(
    [...asked].map(([id, n]) => sql`(${id}::uuid, ${n}::int, ${leaseCaps?.get(id) ?? 0}::int)`),
    sql`, `,
  );
  const share = sql`least(ceil((l.max_clicks - l.counted_clicks) / 20.0)::int, asked.cap)`;
  const rows = await pg.query<{ id: string; granted: number | string; counted: number | string; max: number | string }>(sql`
    with asked(id, n, cap) as (values ${values}),
    cur as (
      select l.id, l.counted_clicks, l.max_clicks,
        least(greatest(asked.n, ${share}), greatest(l.max_clicks - l.counted_clicks, 0)) as granted
      from links l join asked on asked.id = l.id
      where l.max_clicks is not null
      for update of l)
    update links l set counted_clicks = cur.counted_clicks + cur.granted
    from cur where l.id = cur.id
    returning l.id, cur.granted, l.counted_clicks as counted, l.max_clicks as max`);
  return rows.map((r) => ({ id: r.id, granted: Number(r.granted), counted: Number(r.counted), max: Number(r.max) }));
}

/** Gives back leased clicks that were not served. */
export async function returnLeasedClicks(pg: Postgres, unused: Map<string, number>): Promise<void> {
  if (unused.size === 0) return;
  const values = sql.join(
    [...unused].map(([id, n]) => sql`(${id}::uuid, ${n}::int)`),
    sql`, `,
  );
  await pg.query(sql`
    update links l set counted_clicks = greatest(0, l.counted_clicks - v.n)
    from (values ${values}) as v(id, n) where l.id = v.id`);
}

export interface ReachedLimit {
  id: string;
  account_id: string;
  short_code: string;
  original_url: string;
  max_clicks: number;
  max_clicks_url: string | null;
  counted_clicks: number | string;
  domain_id: string | null;
}

/** Marks limited links whose count reached the limit (these ids, or any) as announced; returns them. */
export async function markReachedLimits(pg: Postgres, tx: DbOrTx, ids: string[] | null, batch: number): Promise<ReachedLimit[]> {
  const only = ids
    ? sql`and l.id in (${sql.join(
        ids.map((id) => sql`${id}::uuid`),
        sql`, `,
      )})`
    : sql``;
  return pg.query<ReachedLimit>(
    sql`
    with due as (
      select l.id from links l
      where l.max_clicks is not null and l.limit_notified_at is null and l.counted_clicks >= l.max_clicks
        and l.deleted_at is null ${only}
      limit ${batch}
      for update skip locked)
    update links l set limit_notified_at = now()
    from due where l.id = due.id
    returning l.id, l.account_id, l.short_code, l.original_url, l.max_clicks, l.max_clicks_url, l.counted_clicks, l.domain_id`,
    tx,
  );
}

export interface ExpiredLink {
  id: string;
  account_id: string;
  short_code: string;
  original_url: string;
  expires_at: string | Date;
  expired_url: string | null;
  domain_id: string | null;
}

/** Marks up to `batch` links whose expires_at has passed and that were not announced yet; returns them. */
export const markExpiredLinks = (pg: Postgres, tx: DbOrTx, batch: number) =>
  pg.query<ExpiredLink>(
    sql`
    with due as (
      select l.id from links l
      where l.expires_at <= now() and l.expired_notified_at is null and l.deleted_at is null
      order by l.expires_at
      limit ${batch}
      for update skip locked)
    update links l set expired_notified_at = now()
    from due where l.id = due.id
    returning l.id, l.account_id, l.short_code, l.original_url, l.expires_at, l.expired_url, l.domain_id`,
    tx,
  );

/**
 * After a chunk of clicks is stored (server/ingest/clicks/flusher.ts): one statement per chunk, each
 * link's last_accessed_at moves forward only.
 */
export async function touchLinksLastAccessed(pg: Postgres, latest: Map<string, number>): Promise<void> {
  if (latest.size === 0) return;
  const values = sql.join(
    [...latest].map(([id, ms]) => sql`(${id}::uuid, ${new Date(ms).toISOString()}::timestamptz)`),
    sql`, `,
  );
  await pg.query(sql`
    update links set last_accessed_at = greatest(links.last_accessed_at, v.ts)
    from (values ${values}) as v(id, ts)
    where links.id = v.id`);
}

// What the reports read of links (offered to them through read.ts). A deleted link, in the trash or
// purged, is in none of these answers: docs/api.md "Deleted links in reports".

/** What a report shows of one link. */
export interface LinkFacts {
  id: string;
  short_code: string;
  original_url: string;
  is_active: boolean;
  created_at: Date;
  last_accessed_at: Date | null;
  rules: LinkRuleJson[] | null;
  variants: LinkVariantJson[] | null;
  /** Another product's click total, kept by an import (never part of our counts). */
  imported_clicks: number;
}

/** The live link of the account, for its reports; null when unknown, deleted or another account's. */
export async function findLinkFacts(db: DbOrTx, accountId: string, id: string): Promise<LinkFacts | null> {
  const rows = await db
    .select({
      id: links.id,
      short_code: links.shortCode,
      original_url: links.originalUrl,
      is_active: links.isActive,
      created_at: links.createdAt,
      last_accessed_at: links.lastAccessedAt,
      rules: links.rules,
      variants: links.variants,
      imported_clicks: links.importedClicks,
    })
    .from(links)
    .where(and(eq(links.id, id), eq(links.accountId, accountId), isNull(links.deletedAt)));
  return rows[0] ?? null;
}

export interface LinkCodes {
  ids: string[];
  codes: string[];
}

/**
 * The account's links and their short codes, narrowed by the filters given, deleted links included:
 * their clicks stay exportable (docs/exports.md). One row per link: an export holds them while it runs.
 */
export async function findLinkCodes(
  db: DbOrTx,
  accountId: string,
  f: { linkId?: string; campaignId?: string; domainId?: string },
): Promise<LinkCodes> {
  const conditions: SQL[] = [eq(links.accountId, accountId)];
  if (f.linkId !== undefined) conditions.push(eq(links.id, f.linkId));
  if (f.campaignId !== undefined) conditions.push(eq(links.campaignId, f.campaignId));
  if (f.domainId !== undefined) conditions.push(eq(links.domainId, f.domainId));
  const rows = await db
    .select({ id: links.id, code: links.shortCode })
    .from(links)
    .where(and(...conditions));
  return { ids: rows.map((r) => r.id), codes: rows.map((r) => r.code) };
}

/** The ids among `ids` that are live links of the account. */
export async function findLiveLinkIds(db: DbOrTx, accountId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: links.id })
    .from(links)
    .where(and(eq(links.accountId, accountId), inArray(links.id, [...ids]), isNull(links.deletedAt)));
  return rows.map((r) => r.id);
}

/** Whether some live link of the account carries the tag. */
export async function isLiveTag(db: DbOrTx, accountId: string, tag: string): Promise<boolean> {
  const rows = await db
    .select({ one: sql`1` })
    .from(links)
    .where(and(eq(links.accountId, accountId), isNull(links.deletedAt), sql`${links.tags} @> array[${tag}]::text[]`))
    .limit(1);
  return rows.length > 0;
}

/** What selects a report's links by what they are now. */
export interface LinkSelection {
  linkId?: string;
  tag?: string;
  campaignId?: string;
  domainId?: string;
}

/** The account's live links meeting every condition given (an empty list when none does). */
export async function findLiveLinkIdsWhere(db: DbOrTx, accountId: string, s: LinkSelection): Promise<string[]> {
  const where: SQL[] = [eq(links.accountId, accountId), isNull(links.deletedAt)];
  if (s.linkId !== undefined) where.push(eq(links.id, s.linkId));
  if (s.tag !== undefined) where.push(sql`${links.tags} @> array[${s.tag}]::text[]`);
  if (s.campaignId !== undefined) where.push(eq(links.campaignId, s.campaignId));
  if (s.domainId !== undefined) where.push(eq(links.domainId, s.domainId));
  const rows = await db
    .select({ id: links.id })
    .from(links)
    .where(and(...where));
  return rows.map((r) => r.id);
}

export interface LinkCounts {
  total_links: number;
  total_links_count: number;
  links_this_month: number;
}

/**
 * Live links of the account: total_links in the report's scope (created by the range's end, on the
 * domain — null: a domain the account does not have — and among `linkIds` when given);
 * total_links_count every one; links_this_month created since the month began (UTC).
 */
export async function countReportLinks(
  db: DbOrTx,
  a: { accountId: string; rangeEnd: string; monthStart: string; domainId?: string | null; linkIds?: string[] },
): Promise<LinkCounts> {
  const inDomain: SQL = a.domainId === undefined ? sql`true` : a.domainId === null ? sql`false` : sql`${links.domainId} = ${a.domainId}`;
  const inLinks: SQL =
    a.linkIds === undefined
      ? sql`true`
      : a.linkIds.length === 0
        ? sql`false`
        : // One array parameter, not one per link: a tag may cover more links than a statement takes parameters (65,535).
          sql`${links.id} = any(${`{${a.linkIds.join(",")}}`}::uuid[])`;
  const inRange = sql`${links.createdAt} < ((${a.rangeEnd}::date + 1)::timestamp at time zone 'UTC')`;
  const [r] = await db
    .select({
      total_links: sql<number>`count(*) filter (where ${inDomain} and ${inLinks} and ${inRange})`.mapWith(Number),
      total_links_count: sql<number>`count(*)`.mapWith(Number),
      links_this_month: sql<number>`count(*) filter (where ${links.createdAt} >= (${a.monthStart}::timestamp at time zone 'UTC'))`.mapWith(
        Number,
      ),
    })
    .from(links)
    .where(and(eq(links.accountId, a.accountId), isNull(links.deletedAt)));
  return r;
}

/** Live links on the domain (a domain with links cannot be removed). */
export const countLiveLinksOnDomain = async (db: DbOrTx, domainId: string): Promise<number> =>
  (
    await db
      .select({ n: count() })
      .from(links)
      .where(and(eq(links.domainId, domainId), isNull(links.deletedAt)))
  )[0].n;

export interface LinkLabel {
  id: string;
  shortCode: string;
  campaignId: string | null;
}

/** Short code and campaign of the account's links among `ids`, deleted links included (reports label their past). */
export async function findLinkLabels(db: DbOrTx, accountId: string, ids: readonly string[]): Promise<LinkLabel[]> {
  if (ids.length === 0) return [];
  return db
    .select({ id: links.id, shortCode: links.shortCode, campaignId: links.campaignId })
    .from(links)
    .where(and(eq(links.accountId, accountId), inArray(links.id, [...ids])));
}

/** Raises the imported totals of links of the account (a later export of the same source counts more, never less). */
// Two array literals bound as one parameter each (ids are uuids from our own table, totals whole numbers).
export async function raiseImportedClicks(db: DbOrTx, accountId: string, totals: { id: string; total: number }[]) {
  if (!totals.length) return;
  await db.execute(sql`
    update links set imported_clicks = greatest(links.imported_clicks, v.total)
    from (select unnest(${`{${totals.map((t) => t.id).join(",")}}`}::uuid[]) as id,
                 unnest(${`{${totals.map((t) => Math.trunc(t.total)).join(",")}}`}::bigint[]) as total) v
    where links.id = v.id and links.account_id = ${accountId}`);
}

/**
 * The account's live links after the link `afterId` in (created_at, id) order, oldest first: one page of
 * GET /links/export. The cursor's time is read in SQL: a JavaScript Date has milliseconds, the column
 * microseconds, so a time passed back in would find the same link again.
 */
export const liveLinksAfter = (db: DbOrTx, accountId: string, afterId: string | null, limit: number) =>
  db
    .select()
    .from(links)
    .where(
      and(
        eq(links.accountId, accountId),
        isNull(links.deletedAt),
        afterId ? sql`(${links.createdAt}, ${links.id}) > (select l.created_at, l.id from links l where l.id = ${afterId})` : undefined,
      ),
    )
    .orderBy(asc(links.createdAt), asc(links.id))
    .limit(limit);
