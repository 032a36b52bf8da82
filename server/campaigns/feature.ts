// The campaigns feature: named groups of links (Growth tier or higher).
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { Postgres } from "../storage/postgres/client";
import { campaignsRoutes } from "./routes";

export const campaignsFeature: Feature<{ pg: Postgres; auth: Auth }> = {
  name: "campaigns",
  create: (deps) => ({ routes: campaignsRoutes(deps) }),
};
