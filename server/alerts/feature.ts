// The alerts feature: email reports and alerts (docs/notifications.md). The subscriptions and alerts
// API, the unsubscribe page, and the job that checks the alerts and sends the reports every 15 minutes.
// It makes its own mailer, closed when its job stops.
import { Elysia } from "elysia";
import type { Config } from "../config";
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { Logger } from "../http/logger";
import type { Postgres } from "../storage/postgres/client";
import type { Clickhouse } from "../storage/clickhouse/client";
import { createMailer } from "../mail/mailer";
import { periodicJob } from "../periodic-job";
import { alertsApiRoutes, unsubscribeRoutes } from "./routes";
import { checkAlerts, sendReports, type NotifyDeps } from "./service";

export interface AlertsFeatureDeps {
  config: Pick<Config, "baseUrl" | "appSecret" | "smtpUrl" | "mailFrom">;
  pg: Postgres;
  ch: Clickhouse;
  logger: Logger;
  auth: Auth;
}

export const CHECK_EVERY_MS = 15 * 60_000;

export const alertsFeature: Feature<AlertsFeatureDeps> = {
  name: "alerts",
  create: (deps) => {
    const mailer = createMailer(deps.config.smtpUrl, deps.config.mailFrom);
    const notify: NotifyDeps = {
      pg: deps.pg,
      ch: deps.ch,
      baseUrl: deps.config.baseUrl,
      appSecret: deps.config.appSecret,
      mailer,
      logger: deps.logger,
    };
    return {
      routes: new Elysia().use(alertsApiRoutes(deps)).use(unsubscribeRoutes(deps)),
      job: periodicJob({
        everyMs: CHECK_EVERY_MS,
        onError: (err) => deps.logger.error({ msg: "alerts and reports round failed", error: String(err) }),
        run: async () => {
          await checkAlerts(notify);
          await sendReports(notify);
        },
        finish: () => mailer?.close(),
      }),
    };
  },
};
