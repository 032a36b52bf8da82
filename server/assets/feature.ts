// The browser assets feature: the tracker, the dashboard widgets and the dashboard page.
import type { Feature } from "../feature";
import { assetRoutes } from "./routes";

export const assetsFeature: Feature<object> = { name: "assets", create: () => ({ routes: assetRoutes() }) };
