// What the links feature shares with the others, made once per runtime: the link cache (the redirect
// reads it; link writes invalidate it across instances) and the exact max_clicks counter.
import type { Logger } from "../http/logger";
import type { CacheSync } from "../cluster/sync";
import type { Postgres } from "../storage/postgres/client";
import { LinkCache } from "./cache";
import { ClickLimiter } from "./click-limit";

export async function openLinkShared(deps: { pg: Postgres; sync: CacheSync; baseUrl: string; logger: Logger }) {
  const linkCache = new LinkCache(deps.pg, deps.sync);
  await linkCache.listen();
  const clickLimits = new ClickLimiter(deps.pg, {
    baseUrl: deps.baseUrl,
    onError: (err) => deps.logger.error({ msg: "click limit count failed", error: String(err) }),
  });
  return { linkCache, clickLimits };
}
