// The exports feature: every raw click and journey event of a date range, streamed (docs/exports.md).
// The reports' CSV answers are the HTTP layer's (server/http/csv-report.ts), declared by each report.
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { exportRoutes } from "./routes";

export const exportsFeature: Feature<{ pg: Postgres; ch: Clickhouse; auth: Auth }> = {
  name: "exports",
  create: (deps) => ({ routes: exportRoutes(deps) }),
};
