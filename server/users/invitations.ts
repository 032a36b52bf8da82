// Invitations: links that add a person to an account with a role (a setup link is one without an email,
// whose opener chooses it), their preview, and their acceptance.
import { AppError } from "../errors";
import { emitEvent } from "../webhooks/outbox";
import { toMemberJson } from "../accounts/serialize";
import type { Role } from "../roles";
import type { Postgres } from "../storage/postgres/client";
import type { AcceptInvitationInput, ClientInfo } from "./model";
import { checkPasswordPolicy, hashPassword, verifyPassword } from "./passwords";
import * as repo from "./repository";
import { consoleUrl, invalidLink, normalizeEmail, startSession, type SignedIn, type UsersDeps } from "./service";
import * as limits from "./throttle";
import { hashToken, newToken } from "./tokens";

export const INVITATION_TTL_MS = 7 * 86_400_000;

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
