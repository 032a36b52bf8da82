// Host names as the reports group and filter them: a click's referrer host, and the custom domain it
// came through. Pure: a replayed click gets the same answer.
export const DIRECT = "direct";

/** The referrer's host name, lower case; `direct` when there is none or it is not a URL. */
export function referrerHost(referrer: string): string {
  if (!referrer) return DIRECT;
  try {
    return new URL(referrer).hostname.toLowerCase().replace(/\.$/, "") || DIRECT;
  } catch {
    return DIRECT;
  }
}

/** The custom domain a click came through, as the filter `domain_name` names it: lower case, no port. */
export const normalizeDomain = (host: string) => host.trim().toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");
