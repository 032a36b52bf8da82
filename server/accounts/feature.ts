// The accounts feature: the admin API (accounts, keys, members) and the console's key and account routes.
import { Elysia } from "elysia";
import type { Config } from "../config";
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { adminRoutes } from "./admin-routes";
import type { CachedKeyResolver } from "./api-keys";
import { accountConsoleRoutes } from "./console-routes";

export interface AccountsFeatureDeps {
  config: Pick<Config, "adminToken">;
  pg: Postgres;
  ch: Clickhouse;
  keys: CachedKeyResolver;
  auth: Auth;
}

export const accountsFeature: Feature<AccountsFeatureDeps> = {
  name: "accounts",
  create: (deps) => ({
    routes: new Elysia()
      .use(adminRoutes({ pg: deps.pg, keys: deps.keys, adminToken: deps.config.adminToken }))
      .use(accountConsoleRoutes(deps)),
  }),
};
