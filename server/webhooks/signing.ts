// The signature headers of one delivery attempt: our X-SVC-Signature and the Standard Webhooks
// trio, both over the exact body that is sent. X-SVC-Signature is keyed with the secret as the API
// says, the whole string the create response returned; the Standard Webhooks signature with its
// decoded bytes, as that standard (and its verifier libraries) expect.
import { createHmac } from "node:crypto";
import { secretKeyBytes } from "./secrets";

export function signDelivery(secret: string, deliveryId: string, timestampSeconds: number, body: string) {
  const hex = createHmac("sha256", secret).update(body).digest("hex");
  const standard = createHmac("sha256", secretKeyBytes(secret)).update(`${deliveryId}.${timestampSeconds}.${body}`).digest("base64");
  return {
    "x-svc-signature": `sha256=${hex}`,
    "webhook-id": deliveryId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": `v1,${standard}`,
  };
}
