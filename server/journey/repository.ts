// Postgres access of the journey feature: which links an account owns, and the monthly usage counter.
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { domains, links, monthlyUsage } from "../storage/postgres/schema";
import type { DbOrTx } from "../storage/postgres/client";

/** The ids among `ids` that are live links of the account. */
export async function findOwnedLinkIds(db: DbOrTx, accountId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: links.id })
    .from(links)
    .where(and(eq(links.accountId, accountId), inArray(links.id, ids), isNull(links.deletedAt)));
  return rows.map((r) => r.id);
}

export async function isOwnedLink(db: DbOrTx, accountId: string, id: string): Promise<boolean> {
  return (await findOwnedLinkIds(db, accountId, [id])).length === 1;
}

/** Link ids on the account's domain, or null when the domain is not the account's. */
export async function findDomainLinkIds(db: DbOrTx, accountId: string, domainId: string): Promise<string[] | null> {
  const domain = await db
    .select({ id: domains.id })
    .from(domains)
    .where(and(eq(domains.id, domainId), eq(domains.accountId, accountId)));
  if (domain.length === 0) return null;
  const rows = await db
    .select({ id: links.id })
    .from(links)
    .where(and(eq(links.accountId, accountId), eq(links.domainId, domainId)));
  return rows.map((r) => r.id);
}

export async function readJourneyUsage(db: DbOrTx, accountId: string, month: string): Promise<number> {
  const rows = await db
    .select({ n: monthlyUsage.journeyEvents })
    .from(monthlyUsage)
    .where(and(eq(monthlyUsage.accountId, accountId), eq(monthlyUsage.month, month)));
  return rows[0]?.n ?? 0;
}

/** Adds increments to the stored counters, one statement for all accounts. */
export async function addJourneyUsage(db: DbOrTx, rows: { accountId: string; month: string; journeyEvents: number }[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insert(monthlyUsage)
    .values(rows)
    .onConflictDoUpdate({
      target: [monthlyUsage.accountId, monthlyUsage.month],
      set: { journeyEvents: sql`${monthlyUsage.journeyEvents} + excluded.journey_events` },
    });
}
