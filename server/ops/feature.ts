// Operations: health of both stores and the Prometheus metrics.
import type { Config } from "../config";
import type { Feature } from "../feature";
import type { Metrics } from "../http/metrics";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { opsRoutes } from "./routes";

export const opsFeature: Feature<{ config: Pick<Config, "metricsToken">; pg: Postgres; ch: Clickhouse; metrics: Metrics }> = {
  name: "ops",
  create: (deps) => ({ routes: opsRoutes({ pg: deps.pg, ch: deps.ch, metrics: deps.metrics, metricsToken: deps.config.metricsToken }) }),
};
