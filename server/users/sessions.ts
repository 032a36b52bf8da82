// Console sessions: random tokens in an HttpOnly, SameSite=Lax cookie (Secure, with the __Host- prefix,
// when BASE_URL is https), stored as SHA-256, ended after an idle time and at an absolute expiry. The
// CSRF token is an HMAC of the session id under APP_SECRET: nothing to store, nothing to leak from the database.
import { createHmac } from "node:crypto";
import type { Principal, SessionResolver } from "../http/auth";
import { ROLE_PERMISSIONS, type Role } from "../roles";
import type { Postgres } from "../storage/postgres/client";
import * as repo from "./repository";
import { hashToken, newToken, TOKEN_FORMAT } from "./tokens";

/** last_seen_at is written at most this often per session (the idle expiry's granularity). */
const TOUCH_EVERY_MS = 60_000;

export interface SessionSettings {
  appSecret: string;
  idleMs: number;
  maxMs: number;
  /** https BASE_URL: the cookie is Secure and named with the __Host- prefix. */
  secure: boolean;
}

export interface SessionStore extends SessionResolver {
  start(userId: string, accountId: string, client: { ip: string; userAgent: string | null }): Promise<{ cookie: string; id: string }>;
  clearCookie(): string;
  csrfTokenOf(sessionId: string): string;
  idleSince(): Date;
}

export function createSessionStore(pg: Postgres, settings: SessionSettings): SessionStore {
  const cookieName = settings.secure ? "__Host-svc_session" : "svc_session";
  const cookie = (value: string, maxAgeSeconds: number) =>
    new Bun.Cookie(cookieName, value, {
      httpOnly: true,
      sameSite: "lax",
      secure: settings.secure,
      path: "/",
      maxAge: maxAgeSeconds,
    }).serialize();
  const csrfTokenOf = (sessionId: string) => createHmac("sha256", settings.appSecret).update(`csrf:${sessionId}`).digest("base64url");
  const idleSince = () => new Date(Date.now() - settings.idleMs);

  return {
    cookieName,
    csrfTokenOf,
    idleSince,
    async start(userId, accountId, client) {
      const token = newToken();
      const row = await repo.insertSession(pg.db, {
        userId,
        accountId,
        tokenHash: hashToken(token),
        ip: client.ip,
        userAgent: client.userAgent?.slice(0, 300) ?? null,
        expiresAt: new Date(Date.now() + settings.maxMs),
      });
      return { cookie: cookie(token, Math.floor(settings.maxMs / 1000)), id: row.id };
    },
    clearCookie: () => cookie("", 0),
    async resolve(token): Promise<Principal | null> {
      if (!TOKEN_FORMAT.test(token)) return null;
      const row = await repo.findLiveSession(pg, hashToken(token), idleSince());
      if (!row) return null;
      if (Date.now() - new Date(row.last_seen_at).getTime() > TOUCH_EVERY_MS) await repo.touchSession(pg.db, row.id);
      const role = row.role as Role;
      return {
        keyId: `user:${row.user_id}`,
        scopes: ROLE_PERMISSIONS[role],
        allowedIps: [],
        account: {
          id: row.account_id,
          name: row.name,
          tier: row.tier,
          limitOverrides: row.limit_overrides ?? {},
          createdAt: new Date(row.account_created_at),
        },
        session: { id: row.id, userId: row.user_id, email: row.email, role, csrfToken: csrfTokenOf(row.id) },
      };
    },
  };
}
