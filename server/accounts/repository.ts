// Postgres access for accounts, API keys and team members.
import { and, count, eq, isNull, desc, sql } from "drizzle-orm";
import { accounts, apiKeys, teamMembers } from "../storage/postgres/schema";
import type { DbOrTx, Postgres } from "../storage/postgres/client";
import type { LimitOverrides, Tier } from "../tiers";

export type AccountRow = typeof accounts.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type MemberRow = typeof teamMembers.$inferSelect;

export const insertAccount = async (db: DbOrTx, v: { name: string; tier: Tier; limitOverrides: LimitOverrides }) =>
  (await db.insert(accounts).values(v).returning())[0];

export const findAccount = async (db: DbOrTx, id: string) => (await db.select().from(accounts).where(eq(accounts.id, id)))[0];

export const updateAccountRow = async (db: DbOrTx, id: string, v: Partial<Pick<AccountRow, "tier" | "limitOverrides">>) =>
  (await db.update(accounts).set(v).where(eq(accounts.id, id)).returning())[0];

export const countAccounts = async (db: DbOrTx) => (await db.select({ n: count() }).from(accounts))[0].n;

export const countActiveKeys = async (db: DbOrTx, accountId: string) =>
  (
    await db
      .select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
  )[0].n;

export const insertKey = async (db: DbOrTx, v: typeof apiKeys.$inferInsert) => (await db.insert(apiKeys).values(v).returning())[0];

export const listKeyRows = (db: DbOrTx, accountId: string) =>
  db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId)).orderBy(desc(apiKeys.createdAt));

export const revokeKeyRow = async (db: DbOrTx, accountId: string, keyId: string) =>
  (
    await db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
      .returning()
  )[0];

export const findKey = async (db: DbOrTx, accountId: string, keyId: string) =>
  (
    await db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId)))
  )[0];

/** A live (not revoked) key with its account, as the key resolver caches it. */
export interface KeyPrincipalRow {
  key_id: string;
  scopes: string[];
  allowed_ips: string[];
  account_id: string;
  name: string;
  tier: Tier;
  limit_overrides: Record<string, number | null>;
  created_at: Date | string;
}

export const findLiveKeyByHash = async (pg: Postgres, hash: string): Promise<KeyPrincipalRow | undefined> =>
  (
    await pg.query<KeyPrincipalRow>(sql`
      select k.id as key_id, k.scopes, k.allowed_ips, a.id as account_id, a.name, a.tier, a.limit_overrides, a.created_at
      from api_keys k join accounts a on a.id = k.account_id
      where k.key_hash = ${hash} and k.revoked_at is null`)
  )[0];

/** One statement for the keys used since the last round (last_used_at is informational). */
export const touchKeysLastUsed = (pg: Postgres, ids: string[]) =>
  pg.query(
    sql`update api_keys set last_used_at = now() where id in (${sql.join(
      ids.map((id) => sql`${id}::uuid`),
      sql`, `,
    )})`,
  );

/** Adds a member; a console user who already has the email holds the membership at once. */
export const insertMember = async (db: DbOrTx, v: { accountId: string; email: string; role: string }) =>
  (
    await db
      .insert(teamMembers)
      .values({ ...v, userId: sql`(select id from users where email = ${v.email})` })
      .returning()
  )[0];

export const deleteMember = async (db: DbOrTx, accountId: string, memberId: string) =>
  (
    await db
      .delete(teamMembers)
      .where(and(eq(teamMembers.id, memberId), eq(teamMembers.accountId, accountId)))
      .returning()
  )[0];
