// What the links feature shares with the others, made once per runtime: the link cache (the redirect
// reads it; link writes invalidate it across instances) and the exact max_clicks counter.
import type { SharedFrom } from "../feature";
import { LinkCache } from "./cache";
import { ClickLimiter } from "./click-limit";

export interface LinkShared {
  linkCache: LinkCache;
  /** Exact max_clicks counting for the redirect. */
  clickLimits: ClickLimiter;
}

export async function openLinkShared({ config, pg, sync, logger }: SharedFrom): Promise<LinkShared> {
  const linkCache = new LinkCache(pg, sync);
  await linkCache.listen();
  const clickLimits = new ClickLimiter(pg, {
    baseUrl: config.baseUrl,
    onError: (err) => logger.error({ msg: "click limit count failed", error: String(err) }),
  });
  return { linkCache, clickLimits };
}
