// The click record of one served redirect, written to the spool before the response goes out.
import type { FeatureDeps } from "../app";
import type { CachedLink } from "../links/cache";
import type { RawClick } from "../ingest/records";
import { clientAddress } from "../http/request-context";
import { buildDestination } from "./destination";

/** What a short code may look like (anything else is not ours, or not a link). */
export const SHORT_CODE = /^[A-Za-z0-9_-]{1,64}$/;

const GEO_HEADERS = ["cf-ipcountry", "x-vercel-ip-country", "cloudfront-viewer-country"];

function buildClick(
  deps: Pick<FeatureDeps, "config" | "streams">,
  request: Request,
  server: Parameters<typeof clientAddress>[1],
  link: CachedLink,
  search: string,
  ua: string,
): RawClick {
  const h = request.headers;
  const click: RawClick = {
    click_id: crypto.randomUUID(),
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
    for (const name of GEO_HEADERS) {
      const v = h.get(name);
      if (v) {
        click.geo_country = v;
        break;
      }
    }
  }
  const mobile = h.get("sec-ch-ua-mobile");
  if (mobile) click.ch_mobile = mobile;
  const platform = h.get("sec-ch-ua-platform");
  if (platform) click.ch_platform = platform;
  return click;
}

/**
 * Records the click of a served redirect. The clicks of one event-loop turn share a write syscall;
 * `written` settles after it, and every answer that reveals the destination waits for it.
 */
export function recordClick(
  deps: Pick<FeatureDeps, "config" | "streams">,
  request: Request,
  server: Parameters<typeof clientAddress>[1],
  link: CachedLink,
  search: string,
  ua: string,
) {
  const click = buildClick(deps, request, server, link, search, ua);
  return { clickId: click.click_id, written: deps.streams.clicks.appendSoon(click) };
}

/**
 * The 302 of a served redirect, sent only once its click record is written. With `clickIdHeader`
 * (the fast path, which bypasses the app's request-id plumbing) the click id is the X-Request-Id.
 */
export function redirectAndRecord(
  deps: Pick<FeatureDeps, "config" | "streams">,
  request: Request,
  server: Parameters<typeof clientAddress>[1],
  link: CachedLink,
  search: string,
  ua: string,
  clickIdHeader = false,
): Promise<Response> {
  const { clickId, written } = recordClick(deps, request, server, link, search, ua);
  const headers: Record<string, string> = {
    location: buildDestination(link, search, clickId),
    "cache-control": "private, max-age=0",
    "referrer-policy": "no-referrer-when-downgrade",
  };
  if (clickIdHeader) headers["x-request-id"] = clickId;
  const response = new Response(null, { status: 302, headers });
  return written.then(() => response);
}
