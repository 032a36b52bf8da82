// The redirect hot path, answered before Elysia's router: a cached, active, public link on a known
// host redirects with one cache lookup, one click write and a cheap log line. Anything else (a miss,
// a password, an expiry, a preview crawler, another method) returns undefined and goes through the app.
import type { Server } from "bun";
import type { FeatureDeps } from "../app";
import { redirectAndRecord, SHORT_CODE } from "./record-click";
import { wantsPreview } from "./bots";

export function createFastRedirect(deps: Omit<FeatureDeps, "auth">) {
  const defaultHost = new URL(deps.config.baseUrl).host;
  const counter = deps.metrics.redirects;
  const log = deps.config.logLevel === "info";

  return (request: Request, server: Server<unknown>): Promise<Response> | undefined => {
    const method = request.method;
    if (method !== "GET" && method !== "HEAD") return undefined;
    const started = performance.now();
    const url = request.url;
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    const q = url.indexOf("?", pathStart);
    const code = q < 0 ? url.slice(pathStart + 1) : url.slice(pathStart + 1, q);
    if (!SHORT_CODE.test(code)) return undefined;
    const host = request.headers.get("host") ?? defaultHost;
    const domainId = host === defaultHost ? null : deps.domainCache.peek(host.toLowerCase());
    if (domainId === undefined) return undefined;
    const link = deps.linkCache.peek(domainId, code);
    if (!link || link.deleted || !link.isActive || link.passwordHash || (link.expiresAt !== null && link.expiresAt <= Date.now())) return undefined;
    const ua = request.headers.get("user-agent") ?? "";
    if (wantsPreview(ua)) return undefined;

    const requestId = crypto.randomUUID();
    const answer = redirectAndRecord(deps, request, server, link, q < 0 ? "" : url.slice(q), ua, { "x-request-id": requestId });
    const seconds = (performance.now() - started) / 1000;
    counter.observe(seconds);
    if (log) deps.logger.line(`"request_id":"${requestId}","method":"${method}","path":"/${code}","route":"/:code","status":302,"ms":${Math.round(seconds * 100_000) / 100}`);
    return answer;
  };
}
