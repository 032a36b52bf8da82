// The domains table: every query of the domains feature, and the reads other features make of it
// (the links feature's domain checks and names, the redirect's host lookup, the reports' domain scope).
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import { domains } from "../storage/postgres/schema";
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

/** The id of the account's domain of this name; null when the account has none of that name. */
export const findAccountDomainIdByName = async (db: DbOrTx, accountId: string, name: string): Promise<string | null> =>
  (
    await db
      .select({ id: domains.id })
      .from(domains)
      .where(and(eq(domains.accountId, accountId), eq(domains.name, name)))
  )[0]?.id ?? null;

/** Names of the given domain ids (unknown ids are left out). */
export async function domainNamesByIds(db: DbOrTx, ids: readonly string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: domains.id, name: domains.name })
    .from(domains)
    .where(inArray(domains.id, [...ids]));
  return new Map(rows.map((r) => [r.id, r.name]));
}
