// The redirect feature: GET/HEAD /{short_code} (and POST for password-protected links), and its fast
// path (fast-path.ts), which the server asks before the app as the feature's front handler.
import type { Config } from "../config";
import type { Feature } from "../feature";
import type { Metrics } from "../http/metrics";
import type { Streams } from "../ingest/streams";
import type { DomainHostCache } from "../domains/host-cache";
import type { LinkCache } from "../links/cache";
import type { ClickLimiter } from "../links/click-limit";
import type { Kv } from "../storage/kv";
import { createFastRedirect } from "./fast-path";
import { redirectRoutes } from "./routes";

export interface RedirectDeps {
  config: Pick<Config, "baseUrl" | "trustProxy" | "geoipCityDb">;
  linkCache: LinkCache;
  domainCache: DomainHostCache;
  /** Exact max_clicks counting. */
  clickLimits: ClickLimiter;
  streams: Pick<Streams, "clicks">;
  kv: Kv;
  metrics: Pick<Metrics, "redirects">;
}

export const redirectFeature: Feature<RedirectDeps> = {
  name: "redirect",
  create: (deps) => ({ routes: redirectRoutes(deps), front: createFastRedirect(deps) }),
};
