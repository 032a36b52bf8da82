// Which webhook URLs we send to: HTTPS to public addresses only, unless WEBHOOK_ALLOW_INSECURE.
// Checked when an endpoint is saved and again before every attempt (a name can be re-pointed); each
// attempt then connects to the address that passed (guardedFetch), so DNS rebinding gains nothing.
import { privateHostRefusal, type OutboundPolicy } from "../net/outbound";

/** Why the URL's form is refused (scheme, credentials), or null; the parsed URL when it is not. */
export function checkWebhookUrlForm(raw: string, allowInsecure: boolean): { refusal: string } | { url: URL } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { refusal: "is not a valid URL" };
  }
  if (url.protocol !== "https:" && !(allowInsecure && url.protocol === "http:"))
    return { refusal: url.protocol === "http:" ? `must be an https:// URL${LOCAL_DEVELOPMENT}` : "must be an https:// URL" };
  if (url.username || url.password) return { refusal: "must not contain credentials" };
  return { url };
}

/** What a developer sending webhooks to their own machine needs to know. */
const LOCAL_DEVELOPMENT =
  " (for local development, start the server with WEBHOOK_ALLOW_INSECURE=true to allow http:// and local addresses)";

/** Returns why the URL is refused, or null when it may be used. */
export async function checkWebhookUrl(raw: string, policy: OutboundPolicy): Promise<string | null> {
  const form = checkWebhookUrlForm(raw, policy.allowPrivate);
  if ("refusal" in form) return form.refusal;
  if (policy.allowPrivate) return null;
  const refusal = await privateHostRefusal(form.url.hostname, policy);
  return refusal !== null && refusal.includes("private") ? refusal + LOCAL_DEVELOPMENT : refusal;
}
