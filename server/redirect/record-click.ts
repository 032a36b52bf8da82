// The click record of one served redirect, written to the spool (one write syscall) before the response.
import type { FeatureDeps } from "../app";
import type { CachedLink } from "../links/cache";
import type { RawClick } from "../ingest/records";
import { clientAddress } from "../http/request-context";

const GEO_HEADERS = ["cf-ipcountry", "x-vercel-ip-country", "cloudfront-viewer-country"];

/** Builds the click record of a served redirect (see recordClick and recordClickSoon). */
function buildClick(deps: Pick<FeatureDeps, "config" | "streams">, request: Request, server: Parameters<typeof clientAddress>[1], link: CachedLink, search: string): RawClick {
  const h = request.headers;
  const click: RawClick = {
    click_id: crypto.randomUUID(),
    ts: Date.now(),
    account_id: link.accountId,
    link_id: link.id,
    domain: link.domainId ? (h.get("host") ?? "") : "",
    ua: h.get("user-agent") ?? "",
    ip: clientAddress(request, server, deps.config.trustProxy),
    referrer: h.get("referer") ?? "",
    lang: h.get("accept-language") ?? "",
    query: search.slice(1),
  };
  if (deps.config.trustProxy) {
    for (const name of GEO_HEADERS) {
      const v = h.get(name);
      if (v) { click.geo_country = v; break; }
    }
  }
  const mobile = h.get("sec-ch-ua-mobile");
  if (mobile) click.ch_mobile = mobile;
  const platform = h.get("sec-ch-ua-platform");
  if (platform) click.ch_platform = platform;
  return click;
}

/** Writes the click (one write syscall) before returning its id. */
export function recordClick(deps: Pick<FeatureDeps, "config" | "streams">, request: Request, server: Parameters<typeof clientAddress>[1], link: CachedLink, search: string): string {
  const click = buildClick(deps, request, server, link, search);
  deps.streams.clicks.appendNow(click);
  return click.click_id;
}

/** The hot path's variant: clicks of one event-loop turn share a write; `written` settles after it. */
export function recordClickSoon(deps: Pick<FeatureDeps, "config" | "streams">, request: Request, server: Parameters<typeof clientAddress>[1], link: CachedLink, search: string) {
  const click = buildClick(deps, request, server, link, search);
  return { clickId: click.click_id, written: deps.streams.clicks.appendSoon(click) };
}
