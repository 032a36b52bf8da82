// Operations: liveness, readiness and health of the stores, and the Prometheus metrics.
import type { Config } from "../config";
import type { Feature } from "../feature";
import type { Metrics } from "../http/metrics";
import type { Streams } from "../ingest/streams";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import type { Kv } from "../storage/kv";
import { opsRoutes } from "./routes";

export const opsFeature: Feature<{
  config: Pick<Config, "metricsToken" | "spoolMaxBytes">;
  instanceId: string;
  pg: Postgres;
  ch: Clickhouse;
  kv: Kv;
  streams: Pick<Streams, "all">;
  metrics: Metrics;
}> = {
  name: "ops",
  create: (deps) => ({
    routes: opsRoutes({
      pg: deps.pg,
      ch: deps.ch,
      kv: deps.kv,
      spools: () => deps.streams.all,
      spoolMaxBytes: deps.config.spoolMaxBytes,
      instanceId: deps.instanceId,
      metrics: deps.metrics,
      metricsToken: deps.config.metricsToken,
    }),
  }),
};
