// A served redirect of a link that is more than a plain redirect: opened from its QR code, limited by
// max_clicks, or with rules or variants. Plain links never come here (the fast path checks for them).
import type { RedirectDeps } from "./feature";
import type { LinkTargeting } from "../links/cached-targeting";
import { redirectAndRecord, type ServedBy } from "./record-click";
import type { RedirectRequest } from "./redirect-request";
import { chooseDestination, type TargetingContext } from "./targeting";
import { requestAgent } from "./request-facts";
import { limitReachedPage, unavailablePage } from "./pages";

type Deps = Pick<RedirectDeps, "config" | "streams" | "clickLimits">;

/** The QR code's short URL carries `qr=1`: the redirect strips it and records the click as a scan. */
export const QR_MARKER = "qr=1";
export const hasQrMarker = (search: string) => search.length > QR_MARKER.length && search.includes(QR_MARKER);

function stripQrMarker(search: string): { search: string; qr: boolean } {
  const params = new URLSearchParams(search);
  if (params.get("qr") !== "1") return { search, qr: false };
  params.delete("qr");
  const rest = params.toString();
  return { search: rest ? `?${rest}` : "", qr: true };
}

/** A redirect that is not the link's own and records no click: a fallback URL (limit reached, expired). */
export function fallbackRedirect(url: string, requestId?: string): Response {
  const headers: Record<string, string> = {
    location: url,
    "cache-control": "private, max-age=0",
    "referrer-policy": "no-referrer-when-downgrade",
  };
  if (requestId) headers["x-request-id"] = requestId;
  return new Response(null, { status: 302, headers });
}

const limitReached = (t: LinkTargeting, clickIdHeader: boolean) =>
  t.maxClicksUrl ? fallbackRedirect(t.maxClicksUrl, clickIdHeader ? crypto.randomUUID() : undefined) : limitReachedPage();

export function serveLink(deps: Deps, r: RedirectRequest): Promise<Response> {
  let src: "qr" | undefined;
  if (hasQrMarker(r.search)) {
    const stripped = stripQrMarker(r.search);
    r = { ...r, search: stripped.search };
    if (stripped.qr) src = "qr";
  }
  const t = r.link.targeting;
  if (!t) return redirectAndRecord(deps, r, src && { src });
  const ctx: TargetingContext = { request: r.request, server: r.server, ua: r.ua, search: r.search, config: deps.config };
  const serve = () => {
    const served: ServedBy = chooseDestination(r.link, t, ctx);
    if (src) served.src = src;
    return redirectAndRecord(deps, r, served);
  };
  if (t.maxClicks === null) return serve();
  if (r.link.limitReached) return Promise.resolve(limitReached(t, r.fast));
  ctx.agent = requestAgent(r.request, r.ua);
  if (ctx.agent.is_bot) return serve(); // bots do not use up the limit
  const granted = deps.clickLimits.take(r.link);
  if (granted === true) return serve();
  if (granted === false) return Promise.resolve(limitReached(t, r.fast));
  return granted.then(
    (yes) => (yes ? serve() : limitReached(t, r.fast)),
    () => unavailablePage(),
  );
}
