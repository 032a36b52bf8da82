// The viewer session of a password-protected share: after the right password, a cookie whose value is
// an expiry, a random nonce and an HMAC (under APP_SECRET) of both, the share's id, the token the viewer
// used and the share's password hash. Nothing is stored: a value the server did not sign is refused,
// a new password or the token's end ends every session, and the cookie only travels to the one
// dashboard's path (HttpOnly, SameSite=Lax, Secure on https).
import { createHmac, timingSafeEqual } from "node:crypto";

export const SHARE_SESSION_MS = 30 * 60_000;

export interface ShareSessionSubject {
  shareId: string;
  /** SHA-256 of the token in the URL the viewer opened. */
  tokenHash: string;
  passwordHash: string;
}

export interface ShareSessions {
  cookieName: string;
  /** The Set-Cookie header of a new session for this dashboard's path. */
  issue(subject: ShareSessionSubject, token: string, nowMs?: number): string;
  /** Whether the request's cookie holds a live session of this subject. */
  verify(subject: ShareSessionSubject, cookieHeader: string | null, nowMs?: number): boolean;
}

export function createShareSessions(settings: { appSecret: string; secure: boolean }): ShareSessions {
  // __Secure- (not __Host-: the cookie is scoped to the dashboard's path) on https.
  const cookieName = settings.secure ? "__Secure-svc_share" : "svc_share";
  const mac = (s: ShareSessionSubject, exp: number, nonce: string) =>
    createHmac("sha256", settings.appSecret)
      .update(`share-session\0${s.shareId}\0${s.tokenHash}\0${s.passwordHash}\0${exp}\0${nonce}`)
      .digest("base64url");
  return {
    cookieName,
    issue(subject, token, nowMs = Date.now()) {
      const exp = nowMs + SHARE_SESSION_MS;
      const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
      return new Bun.Cookie(cookieName, `${exp}.${nonce}.${mac(subject, exp, nonce)}`, {
        httpOnly: true,
        sameSite: "lax",
        secure: settings.secure,
        path: `/share/${token}`,
        maxAge: Math.floor(SHARE_SESSION_MS / 1000),
      }).serialize();
    },
    verify(subject, cookieHeader, nowMs = Date.now()) {
      const value = cookieHeader ? new Bun.CookieMap(cookieHeader).get(cookieName) : null;
      const parts = value?.split(".");
      if (!parts || parts.length !== 3) return false;
      const [expText, nonce, given] = parts;
      const exp = Number(expText);
      if (!/^\d{13}$/.test(expText) || exp <= nowMs || exp > nowMs + SHARE_SESSION_MS) return false;
      const expected = Buffer.from(mac(subject, exp, nonce));
      const actual = Buffer.from(given);
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}
