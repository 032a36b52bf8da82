// Password reset links: made by the operator's CLI, or emailed from the forgot-password form when an SMTP
// server is configured; one use, one hour, and using one signs the user out everywhere.
import { AppError } from "../errors";
import type { Postgres } from "../storage/postgres/client";
import type { ClientInfo } from "./model";
import { checkPasswordPolicy, hashPassword } from "./passwords";
import * as repo from "./repository";
import { consoleUrl, invalidLink, normalizeEmail, type UsersDeps } from "./service";
import * as limits from "./throttle";
import { hashToken, newToken } from "./tokens";

export const RESET_TTL_MS = 60 * 60_000;

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
    throw new AppError(
      "FORBIDDEN",
      "This server sends no email: on the server's machine, run `npm run recover -- <email>` in its folder (see docs/console.md)",
    );
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
