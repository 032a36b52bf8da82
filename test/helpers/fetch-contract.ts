// Every answer a test receives from one of our servers through fetch (loopback, under the public or
// admin API) is checked against the OpenAPI document that server serves. A mismatch makes that
// fetch throw, and is also recorded so that a test which swallows the error still fails (preload.ts).
import { ContractChecker, ContractViolation, assertDocumented } from "./contract";

const PUBLIC_DOC = "/public-api/v1/docs/json";
const ADMIN_DOC = "/admin/v1/openapi.json";
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

export const violations: ContractViolation[] = [];
/** Origins that are not our servers (a test's fault-injecting proxy): their answers are not checked. */
const notOurs = new Set<string>();
export function skipContractFor(origin: string): void {
  notOurs.add(new URL(origin).origin);
}
const compiled = new Map<string, ContractChecker>();
const byOrigin = new Map<string, Promise<ContractChecker | null>>();

/** One checker per document text: every server of a test process serves the same documents. */
export function checkerFor(text: string): ContractChecker {
  let c = compiled.get(text);
  if (!c) compiled.set(text, (c = new ContractChecker(JSON.parse(text))));
  return c;
}

async function load(fetcher: typeof fetch, url: string, headers: HeadersInit = {}): Promise<ContractChecker | null> {
  try {
    const res = await fetcher(url, { headers });
    return res.ok ? checkerFor(await res.text()) : null;
  } catch {
    return null;
  }
}

function urlAndMethod(input: RequestInfo | URL, init?: RequestInit) {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  return { url, method, authorization: headers.get("authorization") };
}

let original: typeof fetch = globalThis.fetch;

/** Starts reading a server's public document now, so that a test's first timed request does not wait for it. */
export function preloadContract(origin: string): void {
  const key = `${origin} public`;
  if (!byOrigin.has(key)) byOrigin.set(key, load(original, origin + PUBLIC_DOC));
}

export function installFetchContract(): void {
  original = globalThis.fetch;
  const guarded = async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await original(input, init);
    const { url, method, authorization } = urlAndMethod(input, init);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return res;
    }
    if (!LOOPBACK.has(parsed.hostname) || notOurs.has(parsed.origin)) return res;
    const admin = parsed.pathname.startsWith("/admin/v1/") && parsed.pathname !== ADMIN_DOC;
    if (!admin && !parsed.pathname.startsWith("/public-api/v1/")) return res;
    const key = `${parsed.origin} ${admin ? "admin" : "public"}`;
    if (!byOrigin.has(key)) {
      const docUrl = parsed.origin + (admin ? ADMIN_DOC : PUBLIC_DOC);
      byOrigin.set(key, load(original, docUrl, authorization ? { authorization } : {}));
    }
    const checker = await byOrigin.get(key)!;
    if (!checker) byOrigin.delete(key);
    else
      try {
        await assertDocumented([checker], method, url, res);
      } catch (err) {
        if (err instanceof ContractViolation) violations.push(err);
        throw err;
      }
    return res;
  };
  globalThis.fetch = Object.assign(guarded, original);
}
