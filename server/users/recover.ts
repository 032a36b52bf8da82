// The way back in for a locked-out owner (forgotten password, lost setup link, no SMTP server, no
// ADMIN_TOKEN): `npm run recover` on the server's machine (server/recover.ts) makes a one-time link
// straight in the database, so it needs nothing but access to the server's data.
import type { Postgres } from "../storage/postgres/client";
import { createInvitation } from "./invitations";
import { createResetLink } from "./resets";
import { listAccountsOldestFirst } from "./repository";

export type Recovery =
  | { kind: "reset"; email: string; url: string; expires_at: string }
  | { kind: "setup"; account: string; url: string }
  | { kind: "unknown-email"; email: string }
  | { kind: "no-account" };

/**
 * With the email of a user: a password reset link (one hour). Without an email: an owner setup link for
 * the account (the oldest one, the embedded default, unless `accountId` names another), whose opener
 * chooses the email and password and becomes an owner (7 days).
 */
export async function recoveryLink(pg: Postgres, baseUrl: string, opts: { email?: string; accountId?: string }): Promise<Recovery> {
  if (opts.email) {
    const reset = await createResetLink(pg, baseUrl, opts.email);
    return reset ? { kind: "reset", ...reset } : { kind: "unknown-email", email: opts.email };
  }
  const all = await listAccountsOldestFirst(pg.db);
  const account = opts.accountId ? all.find((a) => a.id === opts.accountId) : all[0];
  if (!account) return { kind: "no-account" };
  const { url } = await createInvitation(pg, baseUrl, { accountId: account.id, email: null, role: "owner", invitedBy: null });
  return { kind: "setup", account: account.name, url };
}
