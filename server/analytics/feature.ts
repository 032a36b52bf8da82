// The click analytics feature: the account reports and one link's stats, and the job that keeps the
// visitor numbers of closed days (visitor-days-job.ts).
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { Logger } from "../http/logger";
import { backgroundQueryJob } from "../periodic-job";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import type { Config } from "../config";
import { analyticsRoutes } from "./routes";
import { visitorDaysRefresher } from "./visitor-days-job";

/** Yesterday's numbers a few minutes after midnight; late clicks into older days within the same time. */
const REFRESH_EVERY_MS = 5 * 60_000;

export const analyticsFeature: Feature<{
  pg: Postgres;
  ch: Clickhouse;
  auth: Auth;
  logger: Logger;
  config: Pick<Config, "clickhouse">;
}> = {
  name: "analytics",
  create: (deps) => {
    return {
      routes: analyticsRoutes(deps),
      // Its queries under the jobs' limit: a first round reads a year of every report's aggregate.
      job: backgroundQueryJob(deps.ch, deps.config.clickhouse.jobQueryTimeoutMs, (queries) => {
        const refresh = visitorDaysRefresher(queries);
        return {
          everyMs: REFRESH_EVERY_MS,
          firstAfterMs: 30_000,
          run: (stopping) => refresh(stopping),
          onError: (err) => deps.logger.error({ msg: "click visitor days not refreshed", error: String(err) }),
        };
      }),
    };
  },
};
