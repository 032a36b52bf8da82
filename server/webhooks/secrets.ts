// Endpoint secrets: `whsec_` + 32 random bytes (base64), as Standard Webhooks defines them, stored
// encrypted with AES-256-GCM under a key derived from APP_SECRET (HKDF-SHA-256).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const PREFIX = "whsec_";
const FORMAT = "v1"; // stored form: "v1:" + base64(iv ‖ tag ‖ ciphertext)
const keys = new Map<string, Buffer>();

export const generateWebhookSecret = () => PREFIX + randomBytes(32).toString("base64");

/** The Standard Webhooks HMAC key: the base64-decoded part after `whsec_` (that standard's rule). */
export const secretKeyBytes = (secret: string) => Buffer.from(secret.slice(PREFIX.length), "base64");

function encryptionKey(appSecret: string): Buffer {
  let key = keys.get(appSecret);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", appSecret, "svc-webhook-secrets", "webhook endpoint secret encryption", 32));
    keys.set(appSecret, key);
  }
  return key;
}

export function encryptSecret(appSecret: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", encryptionKey(appSecret), iv);
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return `${FORMAT}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64")}`;
}

export function decryptSecret(appSecret: string, stored: string): string {
  const [format, blob] = stored.split(":");
  if (format !== FORMAT || !blob) throw new Error("Unknown webhook secret format");
  const raw = Buffer.from(blob, "base64");
  const decipher = createDecipheriv("aes-256-gcm", encryptionKey(appSecret), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}
