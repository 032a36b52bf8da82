// Postgres access of click analytics: link facts and link counts for the reports.
import { sql, type SQL } from "drizzle-orm";
import type { Postgres } from "../storage/postgres/client";

export interface LinkFacts {
  id: string;
  rules: { url: string }[] | null;
  variants: { url: string; weight: number }[] | null;
  short_code: string;
  original_url: string;
  is_active: boolean;
  created_at: Date;
  last_accessed_at: Date | null;
  /** Another product's click total, kept by an import (never part of our counts). */
  imported_clicks: number;
}

export async function findAccountLink(pg: Postgres, accountId: string, linkId: string): Promise<LinkFacts | null> {
  const rows = await pg.query<LinkFacts>(sql`
    select id, short_code, original_url, is_active, created_at, last_accessed_at, rules, variants, imported_clicks from links
    where id = ${linkId} and account_id = ${accountId} and deleted_at is null`);
  const row = rows[0];
  if (!row) return null;
  return {
    ...row,
    imported_clicks: Number(row.imported_clicks ?? 0),
    created_at: new Date(row.created_at),
    last_accessed_at: row.last_accessed_at ? new Date(row.last_accessed_at) : null,
  };
}

/** Which of these ids are live links of the account. */
export async function findAccountLinkIds(pg: Postgres, accountId: string, ids: string[]): Promise<string[]> {
  const rows = await pg.query<{ id: string }>(sql`
    select id from links where account_id = ${accountId} and deleted_at is null and id in (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`);
  return rows.map((r) => r.id);
}

/** The report filters that name links (docs/api.md "Click analytics"). */
export interface LinkFilter {
  linkId?: string;
  tag?: string;
  campaignId?: string;
}

/** Whether some live link of the account carries the tag. */
export async function isAccountTag(pg: Postgres, accountId: string, tag: string): Promise<boolean> {
  const rows = await pg.query(sql`
    select 1 from links where account_id = ${accountId} and deleted_at is null and tags @> array[${tag}]::text[] limit 1`);
  return rows.length > 0;
}

/** The account's live links meeting every filter given (an empty list when none does). */
export async function findFilteredLinkIds(pg: Postgres, accountId: string, f: LinkFilter): Promise<string[]> {
  const conditions: SQL[] = [sql`account_id = ${accountId}`, sql`deleted_at is null`];
  if (f.linkId !== undefined) conditions.push(sql`id = ${f.linkId}`);
  if (f.tag !== undefined) conditions.push(sql`tags @> array[${f.tag}]::text[]`);
  if (f.campaignId !== undefined) conditions.push(sql`campaign_id = ${f.campaignId}`);
  const rows = await pg.query<{ id: string }>(sql`select id from links where ${sql.join(conditions, sql` and `)}`);
  return rows.map((r) => r.id);
}

export interface LinkCounts {
  total_links: number;
  total_links_count: number;
  links_this_month: number;
}

/**
 * total_links: links in the report's scope (created by the range's end, on the domain and among the filtered links when given);
 * total_links_count: every link of the account; links_this_month: created since the month began (UTC).
 */
export async function countAccountLinks(
  pg: Postgres,
  a: { accountId: string; rangeEnd: string; monthStart: string; domain?: string; linkIds?: string[] },
): Promise<LinkCounts> {
  const inDomain: SQL = a.domain
    ? sql`l.domain_id in (select id from domains where account_id = ${a.accountId} and name = ${a.domain})`
    : sql`true`;
  const inLinks: SQL =
    a.linkIds === undefined
      ? sql`true`
      : a.linkIds.length === 0
        ? sql`false`
        : // One array parameter, not one per link: a tag may cover more links than a statement takes parameters (65,535).
          sql`l.id = any(${`{${a.linkIds.join(",")}}`}::uuid[])`;
  const rows = await pg.query<Record<keyof LinkCounts, string | number>>(sql`
    select
      count(*) filter (where ${inDomain} and ${inLinks} and l.created_at < ((${a.rangeEnd}::date + 1)::timestamp at time zone 'UTC')) as total_links,
      count(*) as total_links_count,
      count(*) filter (where l.created_at >= (${a.monthStart}::timestamp at time zone 'UTC')) as links_this_month
    from links l
    where l.account_id = ${a.accountId} and l.deleted_at is null`);
  const r = rows[0];
  return {
    total_links: Number(r.total_links),
    total_links_count: Number(r.total_links_count),
    links_this_month: Number(r.links_this_month),
  };
}
