// The web console's page and assets (its API routes belong to users and accounts).
import type { Feature } from "../feature";
import { consoleRoutes } from "./routes";

export const consoleFeature: Feature<object> = { name: "console", create: () => ({ routes: consoleRoutes() }) };
