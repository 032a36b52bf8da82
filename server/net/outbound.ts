// Server-side fetches of customer-supplied URLs: http(s) only, and never a private or loopback
// address unless WEBHOOK_ALLOW_INSECURE is set (SSRF guard). Every hop of a redirect is checked.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isPrivateAddress } from "../http/ip-allowlist";

export class OutboundRefused extends Error {}

export async function assertPublicTarget(url: URL, allowInsecure: boolean): Promise<void> {
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new OutboundRefused(`scheme ${url.protocol} is not allowed`);
  if (allowInsecure) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    throw new OutboundRefused(`${host} resolves to a private or loopback address`);
  }
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
