// The link expiry sweeper: marks links whose expires_at has passed and emits `link.expired` for each,
// in the same transaction (so the event is sent exactly when the mark is committed). Batches with SKIP LOCKED.
// It also announces reached click limits that the redirect did not (click-limit.ts).
import { emitEvent } from "../webhooks/outbox";
import type { Postgres } from "../storage/postgres/client";
import type { Job } from "../feature";
import { periodicJob } from "../periodic-job";
import { announceReachedLimits, LIMIT_SWEEP_BATCH } from "./click-limit";
import { markExpiredLinks } from "./repository";
import { shortUrl } from "./urls";
import { domainNamesOf } from "./domain-names";

export const SWEEP_INTERVAL_MS = 30_000;
const BATCH = 200;

/** Sweeps one batch; returns how many links it marked. */
export async function sweepExpiredLinks(pg: Postgres, baseUrl: string): Promise<number> {
  return pg.db.transaction(async (tx) => {
    const rows = await markExpiredLinks(pg, tx, BATCH);
    const names = await domainNamesOf(tx, rows);
    for (const link of rows) {
      await emitEvent(tx, link.account_id, "link.expired", {
        id: link.id,
        short_code: link.short_code,
        short_url: shortUrl(baseUrl, link.short_code, link.domain_id && names.get(link.domain_id)),
        original_url: link.original_url,
        expires_at: new Date(link.expires_at).toISOString(),
        reason: "expires_at",
        expired_url: link.expired_url,
      });
    }
    return rows.length;
  });
}

/** Every 30 s, and once at start: every expired link and every reached limit not announced yet. */
export function expirySweeper(deps: { pg: Postgres; baseUrl: string; onError: (err: unknown) => void }): Job {
  return periodicJob({
    everyMs: SWEEP_INTERVAL_MS,
    firstAfterMs: 0,
    onError: deps.onError,
    async run(stopping) {
      while (!stopping.aborted && (await sweepExpiredLinks(deps.pg, deps.baseUrl)) === BATCH);
      while (!stopping.aborted && (await announceReachedLimits(deps.pg, deps.baseUrl)) === LIMIT_SWEEP_BATCH);
    },
  });
}
