// The redirect hot path, answered before Elysia's router: a cached, active, public link on a known
// host redirects with one cache lookup and one click write. Anything else (a miss, a password, an
// expiry, a preview crawler, another method) returns undefined and goes through the app.
// Fast-path redirects are not written to the request log: each one is its click record, whose click
// id is the response's X-Request-Id, and they are counted in the metrics.
import type { Server } from "bun";
import type { RedirectDeps } from "./feature";
import { redirectAndRecord, SHORT_CODE } from "./record-click";
import { wantsPreview } from "./bots";
import { hasQrMarker, serveLink } from "./serve-link";
import type { RedirectRequest } from "./redirect-request";

export function createFastRedirect(deps: RedirectDeps) {
  const defaultHost = new URL(deps.config.baseUrl).host;
  const counter = deps.metrics.redirects;

  return (request: Request, server: Server<unknown>): Promise<Response> | undefined => {
    const method = request.method;
    if (method !== "GET" && method !== "HEAD") return undefined;
    const started = performance.now();
    const url = request.url;
    const hostStart = url.indexOf("//") + 2;
    const pathStart = url.indexOf("/", hostStart);
    const q = url.indexOf("?", pathStart);
    const code = q < 0 ? url.slice(pathStart + 1) : url.slice(pathStart + 1, q);
    if (!SHORT_CODE.test(code)) return undefined;
    // Bun builds request.url from the Host header, so the host is read without a header lookup.
    const host = url.slice(hostStart, pathStart);
    const domainId = host === defaultHost ? null : deps.domainCache.peek(host.toLowerCase());
    if (domainId === undefined) return undefined;
    const link = deps.linkCache.peek(domainId, code);
    if (!link || link.deleted || !link.isActive || link.passwordHash || (link.expiresAt !== null && link.expiresAt <= Date.now()))
      return undefined;
    const ua = request.headers.get("user-agent") ?? "";
    if (wantsPreview(ua)) return undefined;

    const r: RedirectRequest = { request, server, link, search: q < 0 ? "" : url.slice(q), ua, fast: true };
    const answer = link.targeting === null && !hasQrMarker(r.search) ? redirectAndRecord(deps, r) : serveLink(deps, r);
    counter.observe((performance.now() - started) / 1000);
    return answer;
  };
}
