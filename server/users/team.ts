// The team page's logic: members and open invitations, inviting by email, changing roles, removing.
// Owners alone change owners; an account always keeps one owner.
import { AppError, notFound } from "../errors";
import { emitEvent } from "../webhooks/outbox";
import { toMemberJson } from "../accounts/serialize";
import { roleHas, type Role } from "../roles";
import type { SessionInfo } from "../accounts/principal";
import * as repo from "./repository";
import { createInvitation, toInvitationJson } from "./invitations";
import type { UsersDeps } from "./service";

export interface Actor {
  accountId: string;
  accountName: string;
  session: SessionInfo;
}

export async function listTeam(deps: UsersDeps, actor: Actor) {
  const [members, invitations] = await Promise.all([
    repo.listMembers(deps.pg.db, actor.accountId),
    roleHas(actor.session.role, "team:manage") ? repo.listOpenInvitations(deps.pg.db, actor.accountId) : Promise.resolve([]),
  ]);
  return {
    members: members.map((m) => ({ ...toMemberJson(m), pending: m.userId === null, you: m.userId === actor.session.userId })),
    invitations: invitations.filter((i) => i.email !== null).map(toInvitationJson),
  };
}

function requireOwnerRights(actor: Actor, what: string) {
  if (!roleHas(actor.session.role, "owners:manage")) {
    throw new AppError("INSUFFICIENT_PERMISSIONS", `Only an owner can ${what}`, { required: "owners:manage" });
  }
}

/** Invites by email: sent when SMTP is configured, otherwise (or when sending fails) the link is returned to the inviter. */
export async function inviteMember(deps: UsersDeps, actor: Actor, body: { email: string; role: Role }) {
  if (deps.signupMode === "closed") {
    throw new AppError("FORBIDDEN", "Invitations are off on this server (SIGNUP_MODE=closed): the operator adds people");
  }
  if (body.role === "owner") requireOwnerRights(actor, "invite an owner");
  const email = body.email.trim().toLowerCase();
  const member = await repo.findMemberByEmail(deps.pg.db, actor.accountId, email);
  if (member?.userId) throw new AppError("CONFLICT", `${email} is already a member`, { field: "body.email" });
  const { invitation, url } = await createInvitation(deps.pg, deps.baseUrl, {
    accountId: actor.accountId,
    email,
    role: body.role,
    invitedBy: actor.session.userId,
  });
  let emailSent = false;
  if (deps.mailer) {
    try {
      await deps.mailer.send({
        to: email,
        subject: `You are invited to ${actor.accountName}`,
        text: `${actor.session.email} invited you to join ${actor.accountName} as ${body.role}.\n\nAccept here (the link works once, for 7 days):\n${url}\n`,
      });
      emailSent = true;
    } catch (err) {
      deps.logger.error({ msg: "invitation email not sent", error: String(err) });
    }
  }
  return { invitation, email_sent: emailSent, ...(emailSent ? {} : { invitation_url: url }) };
}

export async function revokeInvitation(deps: UsersDeps, actor: Actor, id: string) {
  const row = await repo.deleteInvitation(deps.pg.db, actor.accountId, id);
  if (!row) throw notFound("Invitation");
  return toInvitationJson(row);
}

async function keepsAnOwner(deps: UsersDeps, tx: Parameters<typeof repo.lockOwners>[1], accountId: string, leaving: string) {
  const owners = await repo.lockOwners(deps.pg, tx, accountId);
  if (!owners.some((o) => o.id !== leaving))
    throw new AppError("CONFLICT", "An account keeps at least one owner: make someone else owner first");
}

export async function changeRole(deps: UsersDeps, actor: Actor, memberId: string, role: Role) {
  return deps.pg.db.transaction(async (tx) => {
    const member = await repo.findMember(tx, actor.accountId, memberId);
    if (!member) throw notFound("Member");
    if (member.role === "owner" || role === "owner") requireOwnerRights(actor, "make or unmake owners");
    if (member.role === "owner" && role !== "owner") await keepsAnOwner(deps, tx, actor.accountId, member.id);
    return toMemberJson(await repo.setMemberRole(tx, member.id, role));
  });
}

/** Removes a member (team.member_removed); their sessions in this account end with the membership. */
export async function removeMember(deps: UsersDeps, actor: Actor, memberId: string) {
  return deps.pg.db.transaction(async (tx) => {
    const member = await repo.findMember(tx, actor.accountId, memberId);
    if (!member) throw notFound("Member");
    if (member.role === "owner") {
      requireOwnerRights(actor, "remove an owner");
      await keepsAnOwner(deps, tx, actor.accountId, member.id);
    }
    const removed = toMemberJson(await repo.deleteMemberRow(tx, member.id));
    if (member.userId) await repo.deleteAccountSessions(tx, member.userId, actor.accountId);
    await emitEvent(tx, actor.accountId, "team.member_removed", removed);
    return removed;
  });
}
