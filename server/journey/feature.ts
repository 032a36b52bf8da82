// The journey feature: ingest (POST /journey/events) and the per-link reports. Its in-process state,
// made once per runtime: the link ownership cache, the monthly usage meter (written out by the job,
// about once a second), the idempotency keys (pending, then done: idempotency.ts) and their journal
// beside the spool.
import { join } from "node:path";
import type { Config } from "../config";
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { Logger } from "../http/logger";
import type { Metrics } from "../http/metrics";
import { IdempotencyJournal, type JournalKey } from "../ingest/idempotency-journal";
import type { Streams } from "../ingest/streams";
import { periodicJob } from "../periodic-job";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Kv } from "../storage/kv";
import type { Postgres } from "../storage/postgres/client";
import { IngestAdmission } from "./admission";
import { IdempotencyKeys } from "./idempotency";
import { createLinkOwnership } from "./link-cache";
import { IDEMPOTENCY_WINDOW_MS } from "./model";
import { journeyRoutes } from "./routes";
import { createUsageMeter } from "./usage";

export interface JourneyFeatureDeps {
  config: Pick<Config, "dataDir">;
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
/** Between attempts to settle the keys while the shared store cannot be reached. */
const SETTLE_RETRY_MS = 1_000;

export const journeyFeature: Feature<JourneyFeatureDeps> = {
  name: "journey",
  create(deps) {
    const usage = createUsageMeter(deps.pg.db, deps.kv);
    const { journal, keys } = openJournal(deps);
    const idempotency = new IdempotencyKeys(deps.kv, deps.instanceId, IDEMPOTENCY_WINDOW_MS);
    const stopSettling = new AbortController();
    const routes = journeyRoutes(deps, {
      db: deps.pg.db,
      kv: deps.kv,
      spool: deps.streams.journey,
      links: createLinkOwnership(deps.pg.db),
      usage,
      journal,
      idempotency,
      settled: settle(deps, idempotency, keys, stopSettling.signal),
      admission: new IngestAdmission(deps.streams.journey, MAX_FLUSH_LAG_MS),
      metrics: deps.metrics,
      logger: deps.logger,
    });
    const job = periodicJob({
      everyMs: USAGE_WRITE_EVERY_MS,
      onError: (err) => deps.logger.error({ msg: "journey usage not persisted", error: String(err) }),
      run: () => usage.persist(),
      async finish() {
        stopSettling.abort();
        await usage.stop();
        journal.close();
      },
    });
    return { routes, job };
  },
};

/**
 * The keys whose batches the spool recovered become done (in process memory they are gone after a
 * restart; in Redis they may have been left pending), and the previous process's other pending keys go.
 * Retried until the shared store answers.
 */
async function settle(deps: JourneyFeatureDeps, idempotency: IdempotencyKeys, keys: JournalKey[], stop: AbortSignal): Promise<void> {
  while (!stop.aborted) {
    try {
      const { done, removed } = await idempotency.settle(keys);
      if (removed > 0 || (done > 0 && deps.kv.kind === "redis"))
        deps.logger.info({ msg: "journey idempotency keys of the previous process settled", done, removed });
      return;
    } catch (err) {
      deps.logger.error({ msg: "journey idempotency keys not settled; retrying", error: String(err) });
      await Bun.sleep(SETTLE_RETRY_MS);
    }
  }
}

function openJournal(deps: JourneyFeatureDeps): { journal: IdempotencyJournal; keys: JournalKey[] } {
  return IdempotencyJournal.open(join(deps.config.dataDir, "spool", "journey-idempotency"), deps.streams.journey.recoveredEnd, {
    windowMs: IDEMPOTENCY_WINDOW_MS,
    nowMs: Date.now(),
    onError: (err) => deps.logger.error({ msg: "journey idempotency key not written to disk", error: String(err) }),
  });
}
