// Per-request facts that every layer may need, keyed by the Request object (no globals, no ALS).
import type { Server } from "bun";

interface RequestFacts {
  id: string;
  startedAt: number;
}
const facts = new WeakMap<Request, RequestFacts>();
/** The socket peer of a request we rebuilt (a buffered chunked body): Bun knows only the original's. */
const peers = new WeakMap<Request, string>();

export const rememberPeer = (request: Request, address: string) => void peers.set(request, address);

export function beginRequest(request: Request): RequestFacts {
  const incoming = request.headers.get("x-request-id");
  const f = {
    id: incoming && /^[A-Za-z0-9._-]{8,64}$/.test(incoming) ? incoming : crypto.randomUUID(),
    startedAt: performance.now(),
  };
  facts.set(request, f);
  return f;
}

export const requestFacts = (request: Request): RequestFacts => facts.get(request) ?? beginRequest(request);
export const requestIdOf = (request: Request) => requestFacts(request).id;

/**
 * The caller's address: the socket peer, or with TRUST_PROXY the last X-Forwarded-For entry, the one
 * our proxy appended. Earlier entries are whatever the client sent, so they never count.
 */
export function clientAddress(request: Request, server: Server<unknown> | null | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for");
    const last = forwarded?.slice(forwarded.lastIndexOf(",") + 1).trim();
    if (last) return last;
  }
  return server?.requestIP(request)?.address ?? peers.get(request) ?? "127.0.0.1";
}
