// The features of the service, in one list: each contributes routes and, optionally, background jobs.
// Adding a feature is one line here.
import type { AnyElysia } from "elysia";
import type { AppDeps, FeatureDeps } from "./app";
import { cdnRoutes, linksRoutes } from "./links/routes";
import { startLinkJobs } from "./links/jobs";
import { domainsRoutes } from "./domains/routes";
import { campaignsRoutes } from "./campaigns/routes";
import { redirectRoutes } from "./redirect/routes";
import { analyticsRoutes } from "./analytics/routes";
import { assetRoutes } from "./assets/routes";
import { webhookRoutes } from "./webhooks/routes";
import { startWebhookJobs } from "./webhooks/jobs";
import { journeyRoutes, startJourney } from "./journey/routes";
import { conversionRoutes } from "./conversions/routes";
import { usersRoutes } from "./users/routes";
import { accountConsoleRoutes } from "./accounts/console-routes";
import { consoleRoutes } from "./console/routes";
import { startUserJobs } from "./users/jobs";

export interface Feature {
  name: string;
  routes?: (deps: FeatureDeps) => AnyElysia;
  /** Starts background work (dispatchers, sweepers); returns a stop function awaited at shutdown. */
  start?: (deps: AppDeps) => (() => Promise<void> | void) | void;
}

export const FEATURES: Feature[] = [
  { name: "links", routes: linksRoutes, start: startLinkJobs },
  { name: "cdn", routes: cdnRoutes },
  { name: "assets", routes: assetRoutes },
  { name: "domains", routes: domainsRoutes },
  { name: "campaigns", routes: campaignsRoutes },
  { name: "webhooks", routes: webhookRoutes, start: startWebhookJobs },
  { name: "analytics", routes: analyticsRoutes },
  { name: "journey", routes: journeyRoutes, start: startJourney },
  { name: "conversions", routes: conversionRoutes },
  { name: "users", routes: usersRoutes, start: startUserJobs },
  { name: "account-console", routes: accountConsoleRoutes },
  { name: "console", routes: consoleRoutes },
  // The redirect's catch-all `/:code` stays last.
  { name: "redirect", routes: redirectRoutes },
];
