// Where a redirect goes: the destination (the link's URL, or a rule's or variant's), the link's UTM parameters, the request's own query (which
// wins), and, for links with track_conversions, the attribution parameter `svc_ref=<link_id>.<click_id>`.
import type { CachedLink } from "../links/cache";

export const ATTRIBUTION_PARAM = "svc_ref";

export function buildDestination(link: CachedLink, requestSearch: string, clickId: string, base = link.originalUrl): string {
  if (link.utm.length === 0 && requestSearch.length <= 1 && !link.trackConversions) return base;
  const url = new URL(base);
  for (const [k, v] of link.utm) url.searchParams.set(k, v);
  if (requestSearch.length > 1) for (const [k, v] of new URLSearchParams(requestSearch)) url.searchParams.set(k, v);
  if (link.trackConversions) url.searchParams.set(ATTRIBUTION_PARAM, `${link.id}.${clickId}`);
  return url.toString();
}
