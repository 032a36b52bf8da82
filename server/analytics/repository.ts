// Postgres access of click analytics: visitor salts, links' last access, and link facts for reports.
import { sql, type SQL } from "drizzle-orm";
import type { Postgres } from "../storage/postgres/client";

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

/** One statement per batch: each link's last_accessed_at moves forward only. */
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

export interface LinkFacts {
  id: string;
  rules: { url: string }[] | null;
  variants: { url: string; weight: number }[] | null;
  short_code: string;
  original_url: string;
  is_active: boolean;
  created_at: Date;
  last_accessed_at: Date | null;
}

export async function findAccountLink(pg: Postgres, accountId: string, linkId: string): Promise<LinkFacts | null> {
  const rows = await pg.query<LinkFacts>(sql`
    select id, short_code, original_url, is_active, created_at, last_accessed_at, rules, variants from links
    where id = ${linkId} and account_id = ${accountId} and deleted_at is null`);
  const row = rows[0];
  if (!row) return null;
  return { ...row, created_at: new Date(row.created_at), last_accessed_at: row.last_accessed_at ? new Date(row.last_accessed_at) : null };
}

export interface LinkCounts {
  total_links: number;
  total_links_count: number;
  links_this_month: number;
}

/**
 * total_links: links in the report's scope (created by the range's end, on domain_name when given);
 * total_links_count: every link of the account; links_this_month: created since the month began (UTC).
 */
export async function countAccountLinks(
  pg: Postgres,
  a: { accountId: string; rangeEnd: string; monthStart: string; domain?: string },
): Promise<LinkCounts> {
  const inDomain: SQL = a.domain
    ? sql`l.domain_id in (select id from domains where account_id = ${a.accountId} and name = ${a.domain})`
    : sql`true`;
  const rows = await pg.query<Record<keyof LinkCounts, string | number>>(sql`
    select
      count(*) filter (where ${inDomain} and l.created_at < ((${a.rangeEnd}::date + 1)::timestamp at time zone 'UTC')) as total_links,
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
