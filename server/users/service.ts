// Console people: sign-in and sign-up, invitations (and the first start's setup link), sessions,
// password change and reset. No Elysia here; routes.ts sets the cookies this returns.
import { AppError, notFound } from "../errors";
import { emitEvent } from "../events/bus";
import type { Mailer } from "../mail/mailer";
import { ROLE_PERMISSIONS, type Role } from "../roles";
import type { Kv } from "../storage/kv";
import type { Postgres } from "../storage/postgres/client";
import { insertAccount } from "../accounts/repository";
import type { ClientInfo, AcceptInvitationInput, SignInInput, SignUpInput } from "./model";
import { checkPasswordPolicy, hashPassword, verifyPassword } from "./passwords";
import * as repo from "./repository";
import type { SessionStore } from "./sessions";
import * as limits from "./throttle";
import { hashToken, newToken } from "./tokens";
import { toMemberJson } from "../accounts/service";

export interface UsersDeps {
  pg: Postgres;
  kv: Kv;
  sessions: SessionStore;
  mailer: Mailer | null;
  baseUrl: string;
  signupMode: "open" | "invite" | "closed";
  logger: { error(fields: Record<string, unknown>): void };
}

export const INVITATION_TTL_MS = 7 * 86_400_000;
export const RESET_TTL_MS = 60 * 60_000;

const normalizeEmail = (email: string) => email.trim().toLowerCase();
export const consoleUrl = (baseUrl: string, page: string, token: string) => `${baseUrl}/console/${page}#${token}`;

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

async function startSession(
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

// ---- invitations

/** Creates an invitation (email null: a setup link) and returns its link; the token exists only in it. */
export async function createInvitation(
  pg: Postgres,
  baseUrl: string,
  v: { accountId: string; email: string | null; role: Role; invitedBy: string | null },
) {
  const token = newToken();
  const email = v.email === null ? null : normalizeEmail(v.email);
  const row = await pg.db.transaction(async (tx) => {
    await repo.deleteOpenInvitationsFor(tx, v.accountId, email);
    return repo.insertInvitation(tx, {
      accountId: v.accountId,
      email,
      role: v.role,
      tokenHash: hashToken(token),
      invitedBy: v.invitedBy,
      expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
    });
  });
  return { invitation: toInvitationJson(row), url: consoleUrl(baseUrl, email === null ? "setup" : "invite", token) };
}

export const toInvitationJson = (i: repo.InvitationRow) => ({
  id: i.id,
  email: i.email,
  role: i.role,
  created_at: i.createdAt.toISOString(),
  expires_at: i.expiresAt.toISOString(),
});

const invalidLink = () => new AppError("NOT_FOUND", "This link is invalid, was already used, or has expired");

/** What an invitation link offers, for the page that accepts it. */
export async function previewInvitation(pg: Postgres, token: string) {
  const found = await repo.findOpenInvitation(pg.db, hashToken(token));
  if (!found) throw invalidLink();
  const { invitation, accountName } = found;
  const existing = invitation.email ? await repo.findUserByEmail(pg.db, invitation.email) : undefined;
  return {
    account_name: accountName,
    role: invitation.role,
    email: invitation.email,
    is_setup: invitation.email === null,
    user_exists: !!existing,
    expires_at: invitation.expiresAt.toISOString(),
  };
}

/**
 * Accepts an invitation: a new user sets a password; an existing user proves theirs. The membership is
 * created (team.member_added), or bound when the operator had added the email already.
 */
export async function acceptInvitation(deps: UsersDeps, body: AcceptInvitationInput, client: ClientInfo): Promise<SignedIn> {
  const tokenHash = hashToken(body.token);
  const preview = await repo.findOpenInvitation(deps.pg.db, tokenHash);
  if (!preview) throw invalidLink();
  const email = normalizeEmail(preview.invitation.email ?? body.email ?? "");
  if (!email)
    throw new AppError("VALIDATION_ERROR", "body.email: required for a setup link", {
      fields: [{ field: "body.email", message: "required" }],
    });
  await limits.throttle(deps.kv, [
    [limits.SIGN_IN_PER_ADDRESS, client.ip],
    [limits.SIGN_IN_PER_EMAIL, email],
  ]);
  const existing = await repo.findUserByEmail(deps.pg.db, email);
  let passwordHash: string | null = null;
  if (existing) {
    if (!(await verifyPassword(body.password, existing.passwordHash))) {
      throw new AppError("UNAUTHORIZED", `${email} already has a user: enter its password to accept`);
    }
  } else {
    checkPasswordPolicy("body.password", body.password, email);
    passwordHash = await hashPassword(body.password);
  }
  const { user, accountId } = await deps.pg.db.transaction(async (tx) => {
    const found = await repo.findOpenInvitation(tx, tokenHash);
    if (!found) throw invalidLink();
    const inv = found.invitation;
    let user = await repo.findUserByEmail(tx, email);
    if (user && !existing) throw new AppError("CONFLICT", `${email} signed up a moment ago: try again`, { field: "body.email" });
    user ??= await repo.insertUser(tx, { email, passwordHash: passwordHash! });
    const member = await repo.findMemberByEmail(tx, inv.accountId, email);
    if (!member) {
      const added = await repo.insertMember(tx, { accountId: inv.accountId, email, role: inv.role, userId: user.id });
      await emitEvent(tx, inv.accountId, "team.member_added", toMemberJson(added));
    } else if (member.userId === null) {
      await repo.bindMember(tx, member.id, user.id, inv.role);
    }
    await repo.markInvitationAccepted(tx, inv.id);
    return { user, accountId: inv.accountId };
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

/** A one-time reset link for the user with this email (the CLI's path, and the email's). */
export async function createResetLink(pg: Postgres, baseUrl: string, email: string) {
  const user = await repo.findUserByEmail(pg.db, normalizeEmail(email));
  if (!user) return null;
  const token = newToken();
  const row = await repo.replaceResetToken(pg.db, user.id, hashToken(token), new Date(Date.now() + RESET_TTL_MS));
  return { email: user.email, url: consoleUrl(baseUrl, "reset", token), expires_at: row.expiresAt.toISOString() };
}

/** The forgot-password form: emails a link when the user exists; the answer is the same either way. */
export async function requestPasswordReset(deps: UsersDeps, rawEmail: string, client: ClientInfo) {
  if (!deps.mailer) {
    throw new AppError("FORBIDDEN", "This server sends no email: ask your operator to run `bun run cli user reset-password <email>`");
  }
  const email = normalizeEmail(rawEmail);
  await limits.throttle(deps.kv, [
    [limits.RESET_PER_ADDRESS, client.ip],
    [limits.RESET_PER_EMAIL, email],
  ]);
  const link = await createResetLink(deps.pg, deps.baseUrl, email);
  if (link) {
    const mailer = deps.mailer;
    // Not awaited: answering after the SMTP exchange would tell who has a user.
    void mailer
      .send({
        to: link.email,
        subject: "Reset your password",
        text: `Someone (hopefully you) asked to reset the password of ${link.email}.\n\nSet a new password here (the link works once, for one hour):\n${link.url}\n\nIf you did not ask, ignore this email.`,
      })
      .catch((err) => deps.logger.error({ msg: "password reset email not sent", error: String(err) }));
  }
  return { message: "If a user has this email, a reset link is on its way" };
}

/** Sets a new password from a reset link and signs the user out everywhere. */
export async function confirmPasswordReset(deps: UsersDeps, token: string, password: string) {
  const tokenHash = hashToken(token);
  const found = await repo.findResetToken(deps.pg.db, tokenHash);
  if (!found) throw invalidLink();
  // The policy first: a refused password leaves the link usable.
  checkPasswordPolicy("body.password", password, found.email);
  const hash = await hashPassword(password);
  await deps.pg.db.transaction(async (tx) => {
    if (!(await repo.takeResetToken(tx, tokenHash))) throw invalidLink();
    await repo.setPassword(tx, found.userId, hash);
    await repo.deleteUserSessions(tx, found.userId);
  });
  return { message: "Password changed: sign in with the new one", email: found.email };
}
