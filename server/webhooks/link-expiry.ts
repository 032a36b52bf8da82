// The link expiry sweeper: marks links whose expires_at has passed and emits `link.expired` for each,
// in the same transaction (so the event is sent exactly when the mark is committed). Batches with SKIP LOCKED.
// It also announces reached click limits that the redirect did not (links/click-limit.ts).
import { sql } from "drizzle-orm";
import type { AppDeps } from "../app";
import { emitEvent } from "../events/bus";
import type { Postgres } from "../storage/postgres/client";
import { announceReachedLimits, LIMIT_SWEEP_BATCH } from "../links/click-limit";

export const SWEEP_INTERVAL_MS = 30_000;
const BATCH = 200;

interface ExpiredLink {
  id: string;
  account_id: string;
  short_code: string;
  original_url: string;
  expires_at: string | Date;
  expired_url: string | null;
  domain_name: string | null;
}

const shortUrlOf = (baseUrl: string, link: ExpiredLink) =>
  link.domain_name ? `https://${link.domain_name}/${link.short_code}` : `${baseUrl}/${link.short_code}`;

/** Sweeps one batch; returns how many links it marked. */
export async function sweepExpiredLinks(pg: Postgres, baseUrl: string): Promise<number> {
  return pg.db.transaction(async (tx) => {
    const rows = await pg.query<ExpiredLink>(
      sql`
      with due as (
        select l.id from links l
        where l.expires_at <= now() and l.expired_notified_at is null and l.deleted_at is null
        order by l.expires_at
        limit ${BATCH}
        for update skip locked)
      update links l set expired_notified_at = now()
      from due where l.id = due.id
      returning l.id, l.account_id, l.short_code, l.original_url, l.expires_at, l.expired_url,
        (select d.name from domains d where d.id = l.domain_id) as domain_name`,
      tx,
    );
    for (const link of rows) {
      await emitEvent(tx, link.account_id, "link.expired", {
        id: link.id,
        short_code: link.short_code,
        short_url: shortUrlOf(baseUrl, link),
        original_url: link.original_url,
        expires_at: new Date(link.expires_at).toISOString(),
        reason: "expires_at",
        expired_url: link.expired_url,
      });
    }
    return rows.length;
  });
}

export function startLinkExpirySweeper(deps: AppDeps, intervalMs = SWEEP_INTERVAL_MS): () => Promise<void> {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const sweep = async () => {
    try {
      while (!stopped && (await sweepExpiredLinks(deps.pg, deps.config.baseUrl)) === BATCH);
      while (!stopped && (await announceReachedLimits(deps.pg, deps.config.baseUrl)) === LIMIT_SWEEP_BATCH);
    } catch (err) {
      if (!stopped) deps.logger.error({ msg: "link expiry sweep failed", error: String(err) });
    }
  };
  running = sweep();
  const timer = setInterval(() => {
    running = running.then(sweep);
  }, intervalMs);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
