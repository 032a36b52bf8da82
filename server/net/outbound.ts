// Server-side fetches of customer-supplied URLs: http(s) only, and never a private or loopback
// address unless WEBHOOK_ALLOW_INSECURE is set (SSRF guard). Every hop of a redirect is checked.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isPrivateAddress } from "../http/ip-allowlist";

export class OutboundRefused extends Error {}

const DNS_TIMEOUT_MS = 5_000;

/** Why a host must not be fetched (private, loopback or reserved, or unresolvable), or null when it is public. */
export async function privateHostRefusal(hostname: string): Promise<string | null> {
  const host = hostname.replace(/^\[|\]$/g, "");
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
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("DNS timeout")), DNS_TIMEOUT_MS);
  });
  try {
    const found = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
    return found.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
}

export async function assertPublicTarget(url: URL, allowInsecure: boolean): Promise<void> {
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new OutboundRefused(`scheme ${url.protocol} is not allowed`);
  if (allowInsecure) return;
  const refusal = await privateHostRefusal(url.hostname);
  if (refusal) throw new OutboundRefused(refusal);
}

/** Reads at most `maxBytes` of a body; the rest is dropped. */
export async function readCapped(res: Response, maxBytes: number): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (total < maxBytes) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value.subarray(0, maxBytes - total));
    total += Math.min(value.length, maxBytes - total);
  }
  await reader.cancel().catch(() => {});
  return Buffer.concat(chunks);
}
