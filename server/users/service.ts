// Console people: sign-in and sign-up, the signed-in user's sessions and password change (invitations
// and reset links have their own modules). No Elysia here; routes.ts sets the cookies this returns.
import { AppError, notFound } from "../errors";
import type { Mailer } from "../mail/mailer";
import { ROLE_PERMISSIONS, type Role } from "../roles";
import type { Kv } from "../storage/kv";
import type { Postgres } from "../storage/postgres/client";
import { insertAccount } from "../accounts/repository";
import type { ClientInfo, SignInInput, SignUpInput } from "./model";
import { checkPasswordPolicy, hashPassword, verifyPassword } from "./passwords";
import * as repo from "./repository";
import type { SessionStore } from "./sessions";
import * as limits from "./throttle";

export interface UsersDeps {
  pg: Postgres;
  kv: Kv;
  sessions: SessionStore;
  mailer: Mailer | null;
  baseUrl: string;
  signupMode: "open" | "invite" | "closed";
  logger: { error(fields: Record<string, unknown>): void };
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();
export const consoleUrl = (baseUrl: string, page: string, token: string) => `${baseUrl}/console/${page}#${token}`;

export const invalidLink = () => new AppError("NOT_FOUND", "This link is invalid, was already used, or has expired");

export interface SignedIn {
  cookie: string;
  session: Awaited<ReturnType<typeof describeSession>>;
}

/** What the console needs to know about its session: who, which account, the role and what it allows. */
export async function describeSession(pg: Postgres, s: { userId: string; email: string; accountId: string; csrfToken: string }) {
  const memberships = await repo.listMemberships(pg.db, s.userId);
  const current = memberships.find((m) => m.accountId === s.accountId);
  if (!current) throw new AppError("UNAUTHORIZED", "Your session has ended: sign in again");
  const role = current.role as Role;
  return {
    user: { id: s.userId, email: s.email },
    account: { id: current.accountId, name: current.name, tier: current.tier },
    role,
    permissions: ROLE_PERMISSIONS[role],
    csrf_token: s.csrfToken,
    accounts: memberships.map((m) => ({ id: m.accountId, name: m.name, tier: m.tier, role: m.role })),
  };
}

export async function startSession(
  deps: UsersDeps,
  user: { id: string; email: string },
  accountId: string,
  client: ClientInfo,
): Promise<SignedIn> {
  const { cookie, id } = await deps.sessions.start(user.id, accountId, client);
  const session = await describeSession(deps.pg, {
    userId: user.id,
    email: user.email,
    accountId,
    csrfToken: deps.sessions.csrfTokenOf(id),
  });
  return { cookie, session };
}

export async function signIn(deps: UsersDeps, body: SignInInput, client: ClientInfo): Promise<SignedIn> {
  const email = normalizeEmail(body.email);
  await limits.throttle(deps.kv, [
    [limits.SIGN_IN_PER_ADDRESS, client.ip],
    [limits.SIGN_IN_PER_EMAIL, email],
  ]);
  const user = await repo.findUserByEmail(deps.pg.db, email);
  if (!(await verifyPassword(body.password, user?.passwordHash))) throw new AppError("UNAUTHORIZED", "Wrong email or password");
  const [first] = await repo.listMemberships(deps.pg.db, user.id);
  if (!first) throw new AppError("FORBIDDEN", "You are no longer a member of any account: ask an owner to invite you again");
  return startSession(deps, user, first.accountId, client);
}

/** Open sign-up: a new user owning a new account on the free tier. */
export async function signUp(deps: UsersDeps, body: SignUpInput, client: ClientInfo): Promise<SignedIn> {
  if (deps.signupMode !== "open") throw new AppError("FORBIDDEN", "Sign-up is closed on this server: ask for an invitation");
  const email = normalizeEmail(body.email);
  checkPasswordPolicy("body.password", body.password, email);
  await limits.throttle(deps.kv, [[limits.SIGN_UP_PER_ADDRESS, client.ip]]);
  const passwordHash = await hashPassword(body.password);
  const { user, accountId } = await deps.pg.db.transaction(async (tx) => {
    if (await repo.findUserByEmail(tx, email))
      throw new AppError("CONFLICT", `${email} already has a user: sign in instead`, { field: "body.email" });
    const account = await insertAccount(tx, { name: body.account_name, tier: "free", limitOverrides: {} });
    const user = await repo.insertUser(tx, { email, passwordHash });
    await repo.insertMember(tx, { accountId: account.id, email, role: "owner", userId: user.id });
    return { user, accountId: account.id };
  });
  return startSession(deps, user, accountId, client);
}

// ---- sessions of the signed-in user

export async function switchAccount(deps: UsersDeps, s: { id: string; userId: string; email: string }, accountId: string) {
  const memberships = await repo.listMemberships(deps.pg.db, s.userId);
  if (!memberships.some((m) => m.accountId === accountId)) throw notFound("Account");
  await repo.setSessionAccount(deps.pg.db, s.id, accountId);
  return describeSession(deps.pg, { userId: s.userId, email: s.email, accountId, csrfToken: deps.sessions.csrfTokenOf(s.id) });
}

export async function listSessions(deps: UsersDeps, s: { id: string; userId: string }) {
  const rows = await repo.listUserSessions(deps.pg.db, s.userId, deps.sessions.idleSince());
  return rows.map((r) => ({
    id: r.id,
    current: r.id === s.id,
    ip: r.ip,
    user_agent: r.userAgent,
    created_at: r.createdAt.toISOString(),
    last_seen_at: r.lastSeenAt.toISOString(),
    expires_at: r.expiresAt.toISOString(),
  }));
}

export async function endSession(deps: UsersDeps, s: { userId: string }, id: string) {
  if (!(await repo.deleteSession(deps.pg.db, s.userId, id))) throw notFound("Session");
  return { id, ended: true };
}

export const endOtherSessions = async (deps: UsersDeps, s: { id: string; userId: string }) => ({
  ended: await repo.deleteUserSessions(deps.pg.db, s.userId, s.id),
});

// ---- passwords

/** Changes the password and ends the user's other sessions (a stolen session does not survive it). */
export async function changePassword(
  deps: UsersDeps,
  s: { id: string; userId: string },
  body: { current_password: string; new_password: string },
) {
  const user = await repo.findUser(deps.pg.db, s.userId);
  if (!user || !(await verifyPassword(body.current_password, user.passwordHash))) {
    throw new AppError("VALIDATION_ERROR", "body.current_password: wrong password", {
      fields: [{ field: "body.current_password", message: "wrong password" }],
    });
  }
  checkPasswordPolicy("body.new_password", body.new_password, user.email);
  const hash = await hashPassword(body.new_password);
  const ended = await deps.pg.db.transaction(async (tx) => {
    await repo.setPassword(tx, user.id, hash);
    return repo.deleteUserSessions(tx, user.id, s.id);
  });
  return { message: "Password changed; your other sessions were signed out", ended_sessions: ended };
}
