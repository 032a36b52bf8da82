// The insights feature: paths and retention of a link's journey, and the comparison of reports.
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { insightRoutes } from "./routes";

export const insightsFeature: Feature<{ pg: Postgres; ch: Clickhouse; auth: Auth }> = {
  name: "insights",
  create: (deps) => ({ routes: insightRoutes(deps) }),
};
