// The conversions feature: revenue and conversion reports from journey events.
import { Elysia } from "elysia";
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { attributionRoutes } from "./attribution-routes";
import { conversionRoutes } from "./routes";

export const conversionsFeature: Feature<{ pg: Postgres; ch: Clickhouse; auth: Auth }> = {
  name: "conversions",
  create: (deps) => ({ routes: new Elysia().use(conversionRoutes(deps)).use(attributionRoutes(deps)) }),
};
