// What the realtime reports read, built once from the app's parts: the spools' not-yet-stored records
// (ingest/recent.ts) and the enrichment's visitor hasher (the same daily salt in Postgres, so a held
// click's hash is its future row's). The realtime routes and the shared dashboards use it alike.
import type { Config } from "../config";
import { createVisitorHasher, visitorHashStore } from "../ingest/clicks/enrich/visitor-hash";
import type { Streams } from "../ingest/streams";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import type { RealtimeDeps } from "./service";

export interface RealtimeParts {
  config: Pick<Config, "appSecret">;
  pg: Postgres;
  ch: Clickhouse;
  streams: Pick<Streams, "recent">;
}

export function realtimeDepsOf(parts: RealtimeParts): RealtimeDeps {
  const { recent } = parts.streams;
  return {
    db: parts.pg.db,
    ch: parts.ch,
    unflushed: { clicks: () => recent.clicks.unflushed(), journey: () => recent.journey.unflushed() },
    hashVisitors: createVisitorHasher(visitorHashStore(parts), parts.config.appSecret),
  };
}
