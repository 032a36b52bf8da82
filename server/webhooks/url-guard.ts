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
  if (url.protocol !== "https:" && !(allowInsecure && url.protocol === "http:")) return { refusal: "must be an https:// URL" };
  if (url.username || url.password) return { refusal: "must not contain credentials" };
  return { url };
}

/** Returns why the URL is refused, or null when it may be used. */
export async function checkWebhookUrl(raw: string, policy: OutboundPolicy): Promise<string | null> {
  const form = checkWebhookUrlForm(raw, policy.allowPrivate);
  if ("refusal" in form) return form.refusal;
  if (policy.allowPrivate) return null;
  return privateHostRefusal(form.url.hostname, policy);
}
