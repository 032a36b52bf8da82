// One-time secrets of the console (session cookies, setup, invitation and reset links): 256 random
// bits, URL-safe; only their SHA-256 is stored.
export const newToken = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");

export const hashToken = (token: string) => new Bun.CryptoHasher("sha256").update(token).digest("hex");

/** Tokens as the links carry them: 43 base64url characters. */
export const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;
