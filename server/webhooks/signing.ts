// The signature headers of one delivery attempt: the spec's X-SVC-Signature and the Standard Webhooks
// trio. Both HMACs use the same key bytes (the decoded secret) and sign the exact body that is sent.
import { createHmac } from "node:crypto";
import { secretKeyBytes } from "./secrets";

export function signDelivery(secret: string, deliveryId: string, timestampSeconds: number, body: string) {
  const key = secretKeyBytes(secret);
  const hex = createHmac("sha256", key).update(body).digest("hex");
  const standard = createHmac("sha256", key).update(`${deliveryId}.${timestampSeconds}.${body}`).digest("base64");
  return {
    "x-svc-signature": `sha256=${hex}`,
    "webhook-id": deliveryId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": `v1,${standard}`,
  };
}
