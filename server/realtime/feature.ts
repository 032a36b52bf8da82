// The realtime feature: the last 5 and 30 minutes of clicks and journey events, the spool's
// not-yet-stored records included (server/ingest/recent.ts).
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import { realtimeDepsOf, type RealtimeParts } from "./deps";
import { realtimeRoutes } from "./routes";

export interface RealtimeFeatureDeps extends RealtimeParts {
  auth: Auth;
}

export const realtimeFeature: Feature<RealtimeFeatureDeps> = {
  name: "realtime",
  create: (deps) => ({ routes: realtimeRoutes({ ...realtimeDepsOf(deps), auth: deps.auth }) }),
};
