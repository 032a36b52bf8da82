// The shares feature: read-only shared dashboards (docs/sharing.md): the management API, and the
// page and data endpoints a viewer reaches with the token.
import { Elysia } from "elysia";
import type { Config } from "../config";
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { Postgres } from "../storage/postgres/client";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Kv } from "../storage/kv";
import type { Streams } from "../ingest/streams";
import { sharesApiRoutes, shareViewerRoutes } from "./routes";

export interface SharesFeatureDeps {
  config: Pick<Config, "baseUrl" | "appSecret" | "trustProxy">;
  pg: Postgres;
  ch: Clickhouse;
  kv: Kv;
  auth: Auth;
  /** The spools' not-yet-stored records, for the realtime report (server/realtime/read.ts). */
  streams: Pick<Streams, "recent">;
}

export const sharesFeature: Feature<SharesFeatureDeps> = {
  name: "shares",
  create: (deps) => ({ routes: new Elysia().use(sharesApiRoutes(deps)).use(shareViewerRoutes(deps)) }),
};
