// createApp(deps): HTTP plumbing, then one plugin per feature. No I/O at import time.
import { Elysia, type InternalRoute } from "elysia";
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
import type { SessionStore } from "./users/sessions";
import type { Mailer } from "./mail/mailer";
import type { ClickLimiter } from "./links/click-limit";
import type { OutboundPolicy } from "./net/outbound";
import { httpPlumbing } from "./http/plumbing";
import { readCors } from "./http/read-cors";
import { authPlugin } from "./http/auth";
import { adminRoutes } from "./accounts/admin-routes";
import { usersAdminRoutes } from "./users/admin-routes";
import { opsRoutes } from "./ops/routes";
import { FEATURES } from "./features";
import { openApiRoutes } from "./openapi/routes";

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
  /** Exact max_clicks counting for the redirect. */
  clickLimits: ClickLimiter;
  /** TXT lookups for domain verification (injectable so tests can answer them). */
  resolveTxt: (name: string) => Promise<string[][]>;
  /** Console sessions (cookie, lookup, CSRF tokens). */
  sessions: SessionStore;
  /** Outgoing email, when SMTP_URL is set. */
  mailer: Mailer | null;
  /** The guard of server-side fetches (webhooks, destination metadata). */
  outbound: OutboundPolicy;
}

export type FeatureDeps = AppDeps & { auth: ReturnType<typeof authPlugin> };

export { API_PREFIX } from "./http/api-prefix";
import { API_PREFIX } from "./http/api-prefix";

export function createApp(deps: AppDeps) {
  const auth = authPlugin({
    keys: deps.keys,
    sessions: deps.sessions,
    kv: deps.kv,
    trustProxy: deps.config.trustProxy,
    origins: [new URL(deps.config.baseUrl).origin],
  });
  const featureDeps: FeatureDeps = { ...deps, auth };
  // The documents describe the finished app's route table, read when they are first requested.
  const built: { app?: { routes: readonly InternalRoute[] } } = {};
  const app = new Elysia()
    .use(httpPlumbing(deps))
    .use(readCors())
    .use(openApiRoutes(() => built.app?.routes ?? []))
    .use(opsRoutes({ pg: deps.pg, ch: deps.ch, metrics: deps.metrics, metricsToken: deps.config.metricsToken }))
    .use(adminRoutes({ pg: deps.pg, keys: deps.keys, adminToken: deps.config.adminToken }))
    .use(usersAdminRoutes({ pg: deps.pg, baseUrl: deps.config.baseUrl, adminToken: deps.config.adminToken }))
    .use(featureRoutes(featureDeps));
  built.app = app;
  return app;
}

/** Every feature's routes, in the order of FEATURES (the redirect's catch-all `/:code` comes last). */
function featureRoutes(deps: FeatureDeps) {
  const app = new Elysia({ name: "features" });
  for (const feature of FEATURES) if (feature.routes) app.use(feature.routes(deps));
  return app;
}
