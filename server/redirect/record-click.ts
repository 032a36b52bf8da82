// The click record of one served redirect, written to the spool before the response goes out.
import type { RedirectDeps } from "./feature";
import type { RawClick } from "../ingest/clicks/record";
import type { RedirectRequest } from "./redirect-request";
import { clientAddress } from "../http/request-context";
import { buildDestination } from "./destination";
import { proxyCountryHeader } from "./request-facts";
import { nextClickId } from "./click-id";

/** What a short code may look like (anything else is not ours, or not a link). */
export const SHORT_CODE = /^[A-Za-z0-9_-]{1,64}$/;

/** How a redirect of a link with rules, variants or a QR marker was served (absent: the plain path). */
export interface ServedBy {
  /** The destination before UTM, query and svc_ref (a rule's or variant's URL). */
  url?: string;
  rule?: number;
  variant?: string;
  src?: "qr";
  setCookie?: string;
}

type ClickDeps = Pick<RedirectDeps, "config" | "streams">;

/**
 * Records the click of a served redirect. The clicks of one event-loop turn share a write syscall;
 * `written` settles after it, and every answer that reveals the destination waits for it.
 */
export function recordClick(deps: ClickDeps, { request, server, link, search, ua }: RedirectRequest, served?: ServedBy) {
  const h = request.headers;
  const click: RawClick = {
    click_id: nextClickId(),
    ts: Date.now(),
    account_id: link.accountId,
    link_id: link.id,
    domain: link.domainId ? (h.get("host") ?? "") : "",
    ua,
    ip: clientAddress(request, server, deps.config.trustProxy),
    referrer: h.get("referer") ?? "",
    lang: h.get("accept-language") ?? "",
    query: search.slice(1),
  };
  if (deps.config.trustProxy) {
    const country = proxyCountryHeader(h);
    if (country) click.geo_country = country;
  }
  const mobile = h.get("sec-ch-ua-mobile");
  if (mobile) click.ch_mobile = mobile;
  const platform = h.get("sec-ch-ua-platform");
  if (platform) click.ch_platform = platform;
  if (served) {
    if (served.src) click.src = served.src;
    if (served.variant) click.variant = served.variant;
    if (served.rule) click.rule = served.rule;
  }
  return { clickId: click.click_id, written: deps.streams.clicks.appendSoon(click) };
}

/**
 * The 302 of a served redirect, sent only once its click record is written. On the fast path (which
 * bypasses the app's request-id plumbing) the click id is the X-Request-Id.
 */
export function redirectAndRecord(deps: ClickDeps, r: RedirectRequest, served?: ServedBy): Promise<Response> {
  const { clickId, written } = recordClick(deps, r, served);
  const headers: Record<string, string> = {
    location: buildDestination(r.link, r.search, clickId, served?.url),
    "cache-control": "private, max-age=0",
    "referrer-policy": "no-referrer-when-downgrade",
  };
  if (r.fast) headers["x-request-id"] = clickId;
  if (served?.setCookie) headers["set-cookie"] = served.setCookie;
  const response = new Response(null, { status: 302, headers });
  return written.then(() => response);
}
