// The features of the service, in one list, in the order their routes join the app (the redirect's
// catch-all `/:code` comes last). Adding a feature is one line here; the compiler checks that the
// runtime's deps (runtime.ts) hold what each feature's `create` asks for.
import type { Feature } from "./feature";
import type { AppDeps } from "./runtime";
import { openapiFeature } from "./openapi/feature";
import { opsFeature } from "./ops/feature";
import { accountsFeature } from "./accounts/feature";
import { usersFeature } from "./users/feature";
import { linksFeature } from "./links/feature";
import { assetsFeature } from "./assets/feature";
import { domainsFeature } from "./domains/feature";
import { campaignsFeature } from "./campaigns/feature";
import { webhooksFeature } from "./webhooks/feature";
import { importsFeature } from "./imports/feature";
import { analyticsFeature } from "./analytics/feature";
import { journeyFeature } from "./journey/feature";
import { conversionsFeature } from "./conversions/feature";
import { exportsFeature } from "./exports/feature";
import { sharesFeature } from "./shares/feature";
import { insightsFeature } from "./insights/feature";
import { alertsFeature } from "./alerts/feature";
import { realtimeFeature } from "./realtime/feature";
import { consoleFeature } from "./console/feature";
import { redirectFeature } from "./redirect/feature";

export const FEATURES: readonly Feature<AppDeps>[] = [
  openapiFeature,
  opsFeature,
  accountsFeature,
  usersFeature,
  linksFeature,
  assetsFeature,
  domainsFeature,
  campaignsFeature,
  webhooksFeature,
  importsFeature,
  analyticsFeature,
  journeyFeature,
  conversionsFeature,
  exportsFeature,
  sharesFeature,
  insightsFeature,
  alertsFeature,
  realtimeFeature,
  consoleFeature,
  redirectFeature,
];
