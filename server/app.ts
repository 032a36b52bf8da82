// createApp(deps): HTTP plumbing, then one plugin per feature. No I/O at import time.
import { Elysia } from "elysia";
import { swagger } from "@elysiajs/swagger";
import type { Config } from "./config";
import type { Postgres } from "./storage/postgres/client";
import type { Clickhouse } from "./storage/clickhouse/client";
import type { Kv } from "./storage/kv";
import type { Metrics } from "./http/metrics";
import type { Logger } from "./http/logger";
import type { CachedKeyResolver } from "./accounts/api-keys";
import type { Streams } from "./ingest/streams";
import type { LinkCache } from "./links/cache";
import type { DomainHostCache } from "./domains/host-cache";
import type { OutboundPolicy } from "./net/outbound";
import { httpPlumbing } from "./http/plumbing";
import { readCors } from "./http/read-cors";
import { authPlugin } from "./http/auth";
import { adminRoutes } from "./accounts/admin-routes";
import { opsRoutes } from "./ops/routes";
import { FEATURES } from "./features";

export interface AppDeps {
  config: Config;
  pg: Postgres;
  ch: Clickhouse;
  kv: Kv;
  keys: CachedKeyResolver;
  metrics: Metrics;
  logger: Logger;
  streams: Streams;
  linkCache: LinkCache;
  domainCache: DomainHostCache;
  /** TXT lookups for domain verification (injectable so tests can answer them). */
  resolveTxt: (name: string) => Promise<string[][]>;
  /** The guard of server-side fetches (webhooks, destination metadata). */
  outbound: OutboundPolicy;
}

export type FeatureDeps = AppDeps & { auth: ReturnType<typeof authPlugin> };

export { API_PREFIX } from "./http/api-prefix";
import { API_PREFIX } from "./http/api-prefix";

export function createApp(deps: AppDeps) {
  const featureDeps: FeatureDeps = { ...deps, auth: authPlugin({ keys: deps.keys, kv: deps.kv, trustProxy: deps.config.trustProxy }) };
  return new Elysia()
    .use(httpPlumbing({ ...deps, rawPaths: [`${API_PREFIX}/docs/json`] }))
    .use(readCors())
    .use(
      swagger({
        path: `${API_PREFIX}/docs`,
        specPath: `${API_PREFIX}/docs/json`,
        exclude: [/^\/(?!public-api|admin)/],
        documentation: {
          info: { title: "Link shortening, analytics and journey tracking API", version: "1.0.0" },
          components: {
            securitySchemes: {
              apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
              adminToken: { type: "http", scheme: "bearer" },
            },
          },
        },
      }),
    )
    .use(opsRoutes({ pg: deps.pg, ch: deps.ch, metrics: deps.metrics, metricsToken: deps.config.metricsToken }))
    .use(adminRoutes({ pg: deps.pg, keys: deps.keys, adminToken: deps.config.adminToken }))
    .use(featureRoutes(featureDeps));
}

/** Every feature's routes, in the order of FEATURES (the redirect's catch-all `/:code` comes last). */
function featureRoutes(deps: FeatureDeps) {
  const app = new Elysia({ name: "features" });
  for (const feature of FEATURES) if (feature.routes) app.use(feature.routes(deps));
  return app;
}
