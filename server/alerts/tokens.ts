// Unsubscribe tokens: HMAC-SHA256 of the subscription's id under the app secret, base64url, after a prefix
// of their own. Every report mail of a subscription carries the same link, which works without signing
// in; only the token's SHA-256 is stored, so a copy of the database unsubscribes no one.
import { createHmac } from "node:crypto";

export const UNSUBSCRIBE_TOKEN_FORMAT = /^uns_[A-Za-z0-9_-]{43}$/;
export const unsubscribeToken = (appSecret: string, subscriptionId: string) =>
  `uns_${createHmac("sha256", appSecret).update(`unsubscribe:${subscriptionId}`).digest("base64url")}`;
export const hashUnsubscribeToken = (token: string) => new Bun.CryptoHasher("sha256").update(token).digest("hex");
