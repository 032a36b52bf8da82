// The realtime feature: the last 5 and 30 minutes of clicks and journey events, the spool's
// not-yet-stored records included (server/ingest/recent.ts).
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import { createVisitorHasher, visitorHashStore } from "../ingest/clicks/enrich/visitor-hash";
import type { Streams } from "../ingest/streams";
import type { Config } from "../config";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { realtimeRoutes } from "./routes";

export interface RealtimeFeatureDeps {
  config: Pick<Config, "appSecret">;
  pg: Postgres;
  ch: Clickhouse;
  auth: Auth;
  streams: Pick<Streams, "recent">;
}

export const realtimeFeature: Feature<RealtimeFeatureDeps> = {
  name: "realtime",
  create: (deps) => {
    const { recent } = deps.streams;
    return {
      routes: realtimeRoutes({
        db: deps.pg.db,
        ch: deps.ch,
        auth: deps.auth,
        unflushed: { clicks: () => recent.clicks.unflushed(), journey: () => recent.journey.unflushed() },
        // The enrichment's hasher: the same daily salt (Postgres), so a held click's hash is its future row's.
        hashVisitors: createVisitorHasher(visitorHashStore(deps), deps.config.appSecret),
      }),
    };
  },
};
