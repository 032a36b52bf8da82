// Share tokens: 256 random bits, base64url, after a prefix that tells them from API keys (`svc_`) and
// console tokens, so no other route's parser takes one. Only the SHA-256 is stored.
export const SHARE_TOKEN_FORMAT = /^shr_[A-Za-z0-9_-]{43}$/;

export const newShareToken = () => `shr_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
export const hashShareToken = (token: string) => new Bun.CryptoHasher("sha256").update(token).digest("hex");
/** The first characters, shown in lists to tell shares apart (12 of 256 bits: nothing to guess from). */
export const tokenPrefix = (token: string) => token.slice(0, 8);
