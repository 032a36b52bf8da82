// Which webhook URLs we send to: HTTPS to public addresses only, unless WEBHOOK_ALLOW_INSECURE.
// Checked when an endpoint is saved and again before every attempt (a name can be re-pointed, DNS rebinding).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isPrivateAddress } from "../http/ip-allowlist";

const DNS_TIMEOUT_MS = 5_000;

/** Returns why the URL is refused, or null when it may be used. */
export async function checkWebhookUrl(raw: string, allowInsecure: boolean): Promise<string | null> {
  let url: URL;
  try { url = new URL(raw); } catch { return "is not a valid URL"; }
  if (url.protocol !== "https:" && !(allowInsecure && url.protocol === "http:")) return "must be an https:// URL";
  if (url.username || url.password) return "must not contain credentials";
  if (allowInsecure) return null;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolveHost(host);
  } catch {
    return `host ${host} cannot be resolved`;
  }
  if (addresses.length === 0) return `host ${host} cannot be resolved`;
  if (addresses.some(isPrivateAddress)) return `host ${host} is a private, loopback or reserved address`;
  return null;
}

async function resolveHost(host: string): Promise<string[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error("DNS timeout")), DNS_TIMEOUT_MS); });
  try {
    const found = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
    return found.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
}
