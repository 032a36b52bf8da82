// Pure pieces of the webhooks feature: secret encryption, signatures, URL rules without any traffic.
import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { decryptSecret, encryptSecret, generateWebhookSecret } from "../../server/webhooks/secrets";
import { signDelivery } from "../../server/webhooks/signing";
import { checkWebhookUrl } from "../../server/webhooks/url-guard";
import { serializePayload } from "../../server/webhooks/deliver";

const APP_SECRET = "an-app-secret-of-at-least-32-characters";

describe("webhook secrets and signatures", () => {
  test("secrets round-trip through AES-256-GCM; each encryption uses a fresh IV; tampering is detected", () => {
    const secret = generateWebhookSecret();
    const a = encryptSecret(APP_SECRET, secret);
    const b = encryptSecret(APP_SECRET, secret);
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret.slice(6));
    expect(decryptSecret(APP_SECRET, a)).toBe(secret);
    const raw = Buffer.from(a.slice(3), "base64");
    raw[raw.length - 1] ^= 1;
    expect(() => decryptSecret(APP_SECRET, `v1:${raw.toString("base64")}`)).toThrow();
  });

  test("the Standard Webhooks verifier accepts our headers and rejects a changed body", () => {
    const secret = generateWebhookSecret();
    const body = serializePayload({ data: { b: 1, a: [1, 2] }, timestamp: "2026-01-01T00:00:00.000Z", event: "conversion" });
    expect(body).toBe('{"event":"conversion","timestamp":"2026-01-01T00:00:00.000Z","data":{"b":1,"a":[1,2]}}');
    const headers = signDelivery(secret, "msg_1", Math.floor(Date.now() / 1000), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace("conversion", "link.created"), headers)).toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
  });

  test("X-SVC-Signature is the documented one: hex HMAC-SHA256 of the raw body keyed with the secret string itself", () => {
    const secret = generateWebhookSecret();
    const body = '{"event":"test","timestamp":"2026-01-01T00:00:00.000Z","data":{}}';
    const headers = signDelivery(secret, "msg_1", 1_767_225_600, body);
    // What a receiver following our docs writes, e.g. Python's hmac.new(secret.encode(), body, sha256).
    const expected = new Bun.CryptoHasher("sha256", new TextEncoder().encode(secret)).update(body).digest("hex");
    expect(headers["x-svc-signature"]).toBe(`sha256=${expected}`);
  });
});

describe("webhook URL rules", () => {
  test("a public https address is accepted without the insecure flag (checked without sending anything)", async () => {
    expect(await checkWebhookUrl("https://93.184.215.14/hooks", { allowPrivate: false })).toBeNull();
    expect(await checkWebhookUrl("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hooks", { allowPrivate: false })).toBeNull();
  });

  test("private, loopback, link-local and reserved ranges are refused; the insecure flag allows them and http", async () => {
    for (const url of [
      "https://127.0.0.2/",
      "https://172.16.0.1/",
      "https://100.64.0.1/",
      "https://0.0.0.0/",
      "https://[fd00::1]/",
      "https://[fe80::1]/",
      "https://[::127.0.0.1]/",
      "https://[::7f00:1]/",
      "https://[::a00:1]/",
    ]) {
      expect(await checkWebhookUrl(url, { allowPrivate: false }), url).toContain("private");
      expect(await checkWebhookUrl(url, { allowPrivate: true }), url).toBeNull();
    }
    expect(await checkWebhookUrl("http://127.0.0.1:8080/", { allowPrivate: true })).toBeNull();
    expect(await checkWebhookUrl("file:///etc/passwd", { allowPrivate: true })).toBe("must be an https:// URL");
  });
});
