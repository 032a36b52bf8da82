// Per-request facts that every layer may need, keyed by the Request object (no globals, no ALS).
import type { Server } from "bun";

interface RequestFacts { id: string; startedAt: number }
const facts = new WeakMap<Request, RequestFacts>();

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

/** The caller's address: the socket peer, or the first X-Forwarded-For hop when TRUST_PROXY is set. */
export function clientAddress(request: Request, server: Server<unknown> | null | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for");
    if (forwarded) return forwarded.split(",")[0].trim();
  }
  return server?.requestIP(request)?.address ?? "127.0.0.1";
}
