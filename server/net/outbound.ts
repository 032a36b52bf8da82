// Server-side fetches of customer-supplied URLs: http(s) only, and never a private or loopback
// address unless WEBHOOK_ALLOW_INSECURE is set (SSRF guard). Every hop of a redirect is checked.
// A fetch connects to the very address that passed the check (the URL's host is replaced by it; the
// Host header, TLS SNI and the certificate check keep the name), so a DNS answer that changes between
// the check and the connection (DNS rebinding) cannot send it anywhere else.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isPrivateAddress } from "../http/ip-allowlist";

export class OutboundRefused extends Error {}

export interface OutboundPolicy {
  /** WEBHOOK_ALLOW_INSECURE: private and loopback targets allowed (development and tests). */
  allowPrivate: boolean;
  /** Every address of a host name; DNS unless a test answers it. */
  lookup?: (host: string) => Promise<string[]>;
  /** Addresses never connected to; tests narrow it so that a loopback site can stand in for a public one. */
  isPrivate?: (address: string) => boolean;
}

const DNS_TIMEOUT_MS = 5_000;

type Checked = { addresses: string[] } | { refusal: string };

async function checkHost(hostname: string, policy: OutboundPolicy): Promise<Checked> {
  const host = hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await (policy.lookup ?? resolveHost)(host);
  } catch {
    return { refusal: `host ${host} cannot be resolved` };
  }
  if (addresses.length === 0) return { refusal: `host ${host} cannot be resolved` };
  if (addresses.some(policy.isPrivate ?? isPrivateAddress)) return { refusal: `host ${host} is a private, loopback or reserved address` };
  return { addresses };
}

/** Why a host must not be fetched (private, loopback or reserved, or unresolvable), or null when it is public. */
export async function privateHostRefusal(hostname: string, policy: OutboundPolicy = { allowPrivate: false }): Promise<string | null> {
  const checked = await checkHost(hostname, policy);
  return "refusal" in checked ? checked.refusal : null;
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

/**
 * fetch(url) under the guard: refused (OutboundRefused) for another scheme or a private host; otherwise
 * connected to an address the check passed, trying the next one when a connection is refused.
 */
export async function guardedFetch(url: URL, init: BunFetchRequestInit, policy: OutboundPolicy): Promise<Response> {
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new OutboundRefused(`scheme ${url.protocol} is not allowed`);
  if (policy.allowPrivate) return fetch(url, init);
  const checked = await checkHost(url.hostname, policy);
  if ("refusal" in checked) throw new OutboundRefused(checked.refusal);
  let lastError: unknown;
  for (const address of checked.addresses) {
    try {
      return await fetch(pinnedUrl(url, address), pinnedInit(url, init));
    } catch (err) {
      if (init.signal?.aborted || !isConnectionFailure(err)) throw err;
      lastError = err;
    }
  }
  throw lastError;
}

/** The URL with its host replaced by the checked address. */
export function pinnedUrl(url: URL, address: string): URL {
  const pinned = new URL(url);
  pinned.hostname = address.includes(":") ? `[${address}]` : address;
  return pinned;
}

/** Host header and TLS server name (SNI and the certificate's name) stay the URL's own. */
function pinnedInit(url: URL, init: BunFetchRequestInit): BunFetchRequestInit {
  const headers = new Headers(init.headers);
  headers.set("host", url.host);
  const named = isIP(url.hostname.replace(/^\[|\]$/g, "")) === 0;
  const tls = url.protocol === "https:" && named ? { ...init.tls, serverName: url.hostname } : init.tls;
  return { ...init, headers, tls };
}

const CONNECTION_FAILURES = new Set(["ConnectionRefused", "ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "NetworkUnreachable"]);
const isConnectionFailure = (err: unknown) => CONNECTION_FAILURES.has(String((err as { code?: unknown })?.code));

/**
 * Reads at most `maxBytes` of a body; the rest is dropped unread. With `keepOnError`, a body cut off
 * mid-way yields what had arrived instead of throwing.
 */
export async function readCapped(res: Response, maxBytes: number, opts: { keepOnError?: boolean } = {}): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value.subarray(0, maxBytes - total));
      total += Math.min(value.length, maxBytes - total);
    }
  } catch (err) {
    if (!opts.keepOnError) throw err;
  } finally {
    void reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks);
}
