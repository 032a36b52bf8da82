// Which webhook URLs we send to: HTTPS to public addresses only, unless WEBHOOK_ALLOW_INSECURE.
// Checked when an endpoint is saved and again before every attempt (a name can be re-pointed, DNS rebinding).
import { privateHostRefusal } from "../net/outbound";

/** Returns why the URL is refused, or null when it may be used. */
export async function checkWebhookUrl(raw: string, allowInsecure: boolean): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a valid URL";
  }
  if (url.protocol !== "https:" && !(allowInsecure && url.protocol === "http:")) return "must be an https:// URL";
  if (url.username || url.password) return "must not contain credentials";
  if (allowInsecure) return null;
  return privateHostRefusal(url.hostname);
}
