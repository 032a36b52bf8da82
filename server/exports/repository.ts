// Postgres reads of the raw exports: which links an export may name, and their short codes.
import { sql, type SQL } from "drizzle-orm";
import type { Postgres } from "../storage/postgres/client";

/** Whether the account has this live link. */
export async function isAccountLink(pg: Postgres, accountId: string, linkId: string): Promise<boolean> {
  const rows = await pg.query(sql`select 1 from links where id = ${linkId} and account_id = ${accountId} and deleted_at is null`);
  return rows.length > 0;
}

/** The id of the account's custom domain of this name (lower case), or null. */
export async function findAccountDomainId(pg: Postgres, accountId: string, name: string): Promise<string | null> {
  const rows = await pg.query<{ id: string }>(sql`select id from domains where account_id = ${accountId} and name = ${name}`);
  return rows[0]?.id ?? null;
}

export interface LinkCodes {
  ids: string[];
  codes: string[];
}

/**
 * The account's links (deleted ones too: their clicks stay exportable) and their short codes, narrowed
 * by the filters given. One row per link of the account: an export holds them while it runs.
 */
export async function findLinkCodes(
  pg: Postgres,
  accountId: string,
  f: { linkId?: string; campaignId?: string; domainId?: string },
): Promise<LinkCodes> {
  const conditions: SQL[] = [sql`account_id = ${accountId}`];
  if (f.linkId !== undefined) conditions.push(sql`id = ${f.linkId}`);
  if (f.campaignId !== undefined) conditions.push(sql`campaign_id = ${f.campaignId}`);
  if (f.domainId !== undefined) conditions.push(sql`domain_id = ${f.domainId}`);
  const rows = await pg.query<{ id: string; short_code: string }>(
    sql`select id, short_code from links where ${sql.join(conditions, sql` and `)}`,
  );
  return { ids: rows.map((r) => r.id), codes: rows.map((r) => r.short_code) };
}
