// The journey feature: ingest (POST /journey/events) and the per-link reports. Its in-process state,
// made once per runtime: the link ownership cache, the monthly usage meter (written out by the job,
// about once a second) and the idempotency guard (idempotency/guard.ts). The job also stores the closed
// days' state the reports read (report-cache-job.ts, every minute).
import { join } from "node:path";
import type { Config } from "../config";
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { Logger } from "../http/logger";
import type { Metrics } from "../http/metrics";
import type { Streams } from "../ingest/streams";
import { backgroundQueryJob, jobs, periodicJob } from "../periodic-job";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Kv } from "../storage/kv";
import type { Postgres } from "../storage/postgres/client";
import { IngestAdmission } from "./admission";
import { openIdempotencyGuard } from "./idempotency/guard";
import { createLinkOwnership } from "../links/read";
import { IDEMPOTENCY_WINDOW_MS } from "./model";
import { type RefreshFailure, refreshJourneyReports } from "./report-cache-job";
import { journeyRoutes } from "./routes";
import { createUsageMeter } from "./usage";

export interface JourneyFeatureDeps {
  config: Pick<Config, "dataDir" | "clickhouse">;
  instanceId: string;
  pg: Postgres;
  ch: Clickhouse;
  kv: Kv;
  streams: Pick<Streams, "journey">;
  metrics: Metrics;
  logger: Logger;
  auth: Auth;
}

/** The journey backlog is held to what the flusher stores in this time (see admission.ts). */
const MAX_FLUSH_LAG_MS = 1000;
const USAGE_WRITE_EVERY_MS = 1000;
/** Today's closed hours are stored within a minute of their end, a new day's within a minute of midnight. */
const REPORT_CACHE_EVERY_MS = 60_000;

export const journeyFeature: Feature<JourneyFeatureDeps> = {
  name: "journey",
  create(deps) {
    const usage = createUsageMeter(deps.pg.db, deps.kv);
    const idempotency = openIdempotencyGuard({
      kv: deps.kv,
      instanceId: deps.instanceId,
      dir: join(deps.config.dataDir, "spool", "journey-idempotency"),
      recoveredEnd: deps.streams.journey.recoveredEnd,
      windowMs: IDEMPOTENCY_WINDOW_MS,
      logger: deps.logger,
    });
    const routes = journeyRoutes(deps, {
      db: deps.pg.db,
      kv: deps.kv,
      spool: deps.streams.journey,
      links: createLinkOwnership(deps.pg.db),
      usage,
      idempotency,
      admission: new IngestAdmission(deps.streams.journey, MAX_FLUSH_LAG_MS),
      metrics: deps.metrics,
      logger: deps.logger,
    });
    const usageJob = periodicJob({
      everyMs: USAGE_WRITE_EVERY_MS,
      onError: (err) => deps.logger.error({ msg: "journey usage not persisted", error: String(err) }),
      run: () => usage.persist(),
      async finish() {
        await usage.stop();
        idempotency.close();
      },
    });
    const refreshFailed = (f: RefreshFailure) =>
      deps.logger.error({
        msg: "journey report state not refreshed",
        what: f.what,
        account_id: f.accountId,
        link_id: f.linkId,
        ...(f.steps ? { steps: f.steps.join(",") } : {}),
        error: String(f.error),
      });
    const reportsJob = backgroundQueryJob(deps.ch, deps.config.clickhouse.jobQueryTimeoutMs, (queries) => ({
      everyMs: REPORT_CACHE_EVERY_MS,
      firstAfterMs: 10_000,
      onError: (err) => deps.logger.error({ msg: "journey report state not refreshed", error: String(err) }),
      run: (stopping) => refreshJourneyReports(deps.ch, { stopping, queries, onFailure: refreshFailed }),
    }));
    return { routes, job: jobs(usageJob, reportsJob) };
  },
};
