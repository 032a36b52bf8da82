// Postgres access for console users, their sessions and memberships, invitations and password resets.
import { and, asc, eq, gt, isNull, ne, sql } from "drizzle-orm";
import { accounts, invitations, passwordResets, teamMembers, userSessions, users } from "../storage/postgres/schema";
import type { DbOrTx, Postgres } from "../storage/postgres/client";
import type { Tier } from "../tiers";

export type UserRow = typeof users.$inferSelect;
export type SessionRow = typeof userSessions.$inferSelect;
export type InvitationRow = typeof invitations.$inferSelect;
export type MemberRow = typeof teamMembers.$inferSelect;

export const findUserByEmail = async (db: DbOrTx, email: string) => (await db.select().from(users).where(eq(users.email, email)))[0];
export const findUser = async (db: DbOrTx, id: string) => (await db.select().from(users).where(eq(users.id, id)))[0];
export const countUsers = async (db: DbOrTx) => (await db.select({ n: sql<number>`count(*)::int` }).from(users))[0].n;

export const insertUser = async (db: DbOrTx, v: { email: string; passwordHash: string }) =>
  (await db.insert(users).values(v).returning())[0];

export const setPassword = (db: DbOrTx, userId: string, passwordHash: string) =>
  db.update(users).set({ passwordHash, passwordChangedAt: new Date() }).where(eq(users.id, userId));

// ---- memberships

/** The accounts a user belongs to, oldest membership first. */
export const listMemberships = (db: DbOrTx, userId: string) =>
  db
    .select({ accountId: teamMembers.accountId, role: teamMembers.role, name: accounts.name, tier: accounts.tier })
    .from(teamMembers)
    .innerJoin(accounts, eq(accounts.id, teamMembers.accountId))
    .where(eq(teamMembers.userId, userId))
    .orderBy(asc(teamMembers.createdAt), asc(teamMembers.accountId));

export const findMemberByEmail = async (db: DbOrTx, accountId: string, email: string) =>
  (
    await db
      .select()
      .from(teamMembers)
      .where(and(eq(teamMembers.accountId, accountId), eq(teamMembers.email, email)))
  )[0];

export const findMember = async (db: DbOrTx, accountId: string, memberId: string) =>
  (
    await db
      .select()
      .from(teamMembers)
      .where(and(eq(teamMembers.accountId, accountId), eq(teamMembers.id, memberId)))
  )[0];

export const insertMember = async (db: DbOrTx, v: typeof teamMembers.$inferInsert) =>
  (await db.insert(teamMembers).values(v).returning())[0];

export const bindMember = async (db: DbOrTx, memberId: string, userId: string, role: string) =>
  (await db.update(teamMembers).set({ userId, role }).where(eq(teamMembers.id, memberId)).returning())[0];

export const setMemberRole = async (db: DbOrTx, memberId: string, role: string) =>
  (await db.update(teamMembers).set({ role }).where(eq(teamMembers.id, memberId)).returning())[0];

export const deleteMemberRow = async (db: DbOrTx, memberId: string) =>
  (await db.delete(teamMembers).where(eq(teamMembers.id, memberId)).returning())[0];

export const listMembers = (db: DbOrTx, accountId: string) =>
  db.select().from(teamMembers).where(eq(teamMembers.accountId, accountId)).orderBy(asc(teamMembers.createdAt), asc(teamMembers.id));

/** Owners of the account, locked so that two concurrent demotions cannot both leave it without one. */
export const lockOwners = (pg: Postgres, tx: DbOrTx, accountId: string) =>
  pg.query<{ id: string }>(sql`select id from team_members where account_id = ${accountId} and role = 'owner' for update`, tx);

// ---- sessions

export const insertSession = async (db: DbOrTx, v: typeof userSessions.$inferInsert) =>
  (await db.insert(userSessions).values(v).returning())[0];

export interface LiveSessionRow {
  id: string;
  user_id: string;
  email: string;
  role: string;
  last_seen_at: Date | string;
  account_id: string;
  name: string;
  tier: Tier;
  limit_overrides: Record<string, number | null> | null;
  account_created_at: Date | string;
}

/** A live session (not past its absolute expiry, seen since `idleSince`) whose user still belongs to its account. */
export async function findLiveSession(pg: Postgres, tokenHash: string, idleSince: Date) {
  const [row] = await pg.query<LiveSessionRow>(sql`
    select s.id, s.user_id, u.email, m.role, s.last_seen_at, a.id as account_id, a.name, a.tier, a.limit_overrides,
      a.created_at as account_created_at
    from user_sessions s
    join users u on u.id = s.user_id
    join team_members m on m.account_id = s.account_id and m.user_id = s.user_id
    join accounts a on a.id = s.account_id
    where s.token_hash = ${tokenHash} and s.expires_at > now() and s.last_seen_at > ${idleSince.toISOString()}::timestamptz`);
  return row;
}

export const touchSession = (db: DbOrTx, id: string) =>
  db.update(userSessions).set({ lastSeenAt: new Date() }).where(eq(userSessions.id, id));

export const setSessionAccount = (db: DbOrTx, id: string, accountId: string) =>
  db.update(userSessions).set({ accountId }).where(eq(userSessions.id, id));

export const listUserSessions = (db: DbOrTx, userId: string, idleSince: Date) =>
  db
    .select()
    .from(userSessions)
    .where(and(eq(userSessions.userId, userId), gt(userSessions.expiresAt, new Date()), gt(userSessions.lastSeenAt, idleSince)))
    .orderBy(sql`${userSessions.lastSeenAt} desc`);

export const deleteSession = async (db: DbOrTx, userId: string, id: string) =>
  (
    await db
      .delete(userSessions)
      .where(and(eq(userSessions.id, id), eq(userSessions.userId, userId)))
      .returning({ id: userSessions.id })
  )[0];

/** Ends every session of the user but `keep`; returns how many ended. */
export const deleteUserSessions = async (db: DbOrTx, userId: string, keep?: string) =>
  (
    await db
      .delete(userSessions)
      .where(keep ? and(eq(userSessions.userId, userId), ne(userSessions.id, keep)) : eq(userSessions.userId, userId))
      .returning({ id: userSessions.id })
  ).length;

export const deleteAccountSessions = (db: DbOrTx, userId: string, accountId: string) =>
  db.delete(userSessions).where(and(eq(userSessions.userId, userId), eq(userSessions.accountId, accountId)));

export const deleteExpiredSessions = (db: DbOrTx, idleSince: Date) =>
  db
    .delete(userSessions)
    .where(sql`${userSessions.expiresAt} <= now() or ${userSessions.lastSeenAt} <= ${idleSince.toISOString()}::timestamptz`);

// ---- invitations

export const insertInvitation = async (db: DbOrTx, v: typeof invitations.$inferInsert) =>
  (await db.insert(invitations).values(v).returning())[0];

/** An invitation that can still be accepted, locked for the acceptance's transaction. */
export const findOpenInvitation = async (db: DbOrTx, tokenHash: string) =>
  (
    await db
      .select({ invitation: invitations, accountName: accounts.name })
      .from(invitations)
      .innerJoin(accounts, eq(accounts.id, invitations.accountId))
      .where(and(eq(invitations.tokenHash, tokenHash), isNull(invitations.acceptedAt), gt(invitations.expiresAt, new Date())))
      .for("update", { of: invitations })
  )[0];

export const markInvitationAccepted = (db: DbOrTx, id: string) =>
  db.update(invitations).set({ acceptedAt: new Date() }).where(eq(invitations.id, id));

export const listOpenInvitations = (db: DbOrTx, accountId: string) =>
  db
    .select()
    .from(invitations)
    .where(and(eq(invitations.accountId, accountId), isNull(invitations.acceptedAt), gt(invitations.expiresAt, new Date())))
    .orderBy(asc(invitations.createdAt));

export const deleteInvitation = async (db: DbOrTx, accountId: string, id: string) =>
  (
    await db
      .delete(invitations)
      .where(and(eq(invitations.id, id), eq(invitations.accountId, accountId), isNull(invitations.acceptedAt)))
      .returning()
  )[0];

/** Open invitations of the account for this email (or, with null, its setup links). */
export const deleteOpenInvitationsFor = (db: DbOrTx, accountId: string, email: string | null) =>
  db
    .delete(invitations)
    .where(
      and(
        eq(invitations.accountId, accountId),
        isNull(invitations.acceptedAt),
        email === null ? isNull(invitations.email) : eq(invitations.email, email),
      ),
    );

// ---- password resets

export const replaceResetToken = async (db: DbOrTx, userId: string, tokenHash: string, expiresAt: Date) => {
  await db.delete(passwordResets).where(eq(passwordResets.userId, userId));
  return (await db.insert(passwordResets).values({ userId, tokenHash, expiresAt }).returning())[0];
};

export const findResetToken = async (db: DbOrTx, tokenHash: string) =>
  (
    await db
      .select({ userId: passwordResets.userId, email: users.email })
      .from(passwordResets)
      .innerJoin(users, eq(users.id, passwordResets.userId))
      .where(and(eq(passwordResets.tokenHash, tokenHash), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, new Date())))
  )[0];

export const takeResetToken = async (db: DbOrTx, tokenHash: string) =>
  (
    await db
      .update(passwordResets)
      .set({ usedAt: new Date() })
      .where(and(eq(passwordResets.tokenHash, tokenHash), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, new Date())))
      .returning()
  )[0];

// ---- first start

/** Every account, oldest first (the recovery command's choice of account). */
export const listAccountsOldestFirst = (db: DbOrTx) =>
  db.select({ id: accounts.id, name: accounts.name }).from(accounts).orderBy(asc(accounts.createdAt));

/** The oldest account (the one the embedded bootstrap created), when no user exists yet. */
export const firstAccountWithoutUsers = async (db: DbOrTx) =>
  (await countUsers(db)) > 0 ? undefined : (await db.select().from(accounts).orderBy(asc(accounts.createdAt)).limit(1))[0];
