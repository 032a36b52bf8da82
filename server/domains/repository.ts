// The domains table: every query of the domains feature, and the reads other features make of it
// (the links feature's domain checks and names, the redirect's host lookup).
import { and, count, eq, inArray, isNotNull, isNull } from "drizzle-orm";
import { domains, links } from "../storage/postgres/schema";
import type { DbOrTx } from "../storage/postgres/client";

export type DomainRow = typeof domains.$inferSelect;

export const findAccountDomain = async (db: DbOrTx, accountId: string, id: string): Promise<DomainRow | undefined> =>
  (
    await db
      .select()
      .from(domains)
      .where(and(eq(domains.id, id), eq(domains.accountId, accountId)))
  )[0];

export const listAccountDomains = (db: DbOrTx, accountId: string): Promise<DomainRow[]> =>
  db.select().from(domains).where(eq(domains.accountId, accountId)).orderBy(domains.createdAt);

/** The id of the verified domain of this name, whichever account holds it; null when none. */
export const findVerifiedDomainId = async (db: DbOrTx, name: string): Promise<string | null> =>
  (
    await db
      .select({ id: domains.id })
      .from(domains)
      .where(and(eq(domains.name, name), isNotNull(domains.verifiedAt)))
  )[0]?.id ?? null;

export const insertDomain = async (db: DbOrTx, accountId: string, name: string, verificationToken: string): Promise<DomainRow> =>
  (await db.insert(domains).values({ accountId, name, verificationToken }).returning())[0];

export const markDomainVerified = async (db: DbOrTx, id: string): Promise<DomainRow> =>
  (await db.update(domains).set({ verifiedAt: new Date() }).where(eq(domains.id, id)).returning())[0];

export const deleteDomainRow = (db: DbOrTx, id: string) => db.delete(domains).where(eq(domains.id, id));

/** Live (not deleted) links on the domain. */
export const countLiveLinksOnDomain = async (db: DbOrTx, id: string): Promise<number> =>
  (
    await db
      .select({ n: count() })
      .from(links)
      .where(and(eq(links.domainId, id), isNull(links.deletedAt)))
  )[0].n;

/** Names of the given domain ids (unknown ids are left out). */
export async function domainNamesByIds(db: DbOrTx, ids: readonly string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: domains.id, name: domains.name })
    .from(domains)
    .where(inArray(domains.id, [...ids]));
  return new Map(rows.map((r) => [r.id, r.name]));
}
