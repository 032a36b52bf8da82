// The click analytics feature: the account reports and one link's stats.
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { analyticsRoutes } from "./routes";

export const analyticsFeature: Feature<{ pg: Postgres; ch: Clickhouse; auth: Auth }> = {
  name: "analytics",
  create: (deps) => ({ routes: analyticsRoutes(deps) }),
};
