// The idempotency of journey batches as one guard. A batch with an X-Idempotency-Key begins by claiming
// the key and gets a ticket; the ticket goes with the batch into the spool and ends in commit (stored)
// or abort (refused or failed):
//
//   begin(account, key) → "already processed" | 503 (the key's first batch is still being stored)
//                       → ticket: beforeWrite(end)  the key goes to the journal with the batch's write
//                                 commit()          the key is on disk with the batch; it becomes done
//                                 abort()           the batch was not stored; a retry will be
//
// The parts: the keys in the shared store (keys.ts: pending, then done), the journal beside the spool
// (journal.ts: which keys a restart may count as stored), and the settle job that, after a restart,
// turns what the previous process of this instance left into the truth before any keyed batch is taken.
import { AppError } from "../../errors";
import type { SpoolPosition } from "../../ingest/spool";
import type { Logger } from "../../http/logger";
import type { Kv } from "../../storage/kv";
import { IdempotencyJournal, type JournalKey } from "./journal";
import { IdempotencyKeys } from "./keys";

export interface Ticket {
  /** The spool's AppendOptions.beforeWrite: called just before the write that carries the batch. */
  beforeWrite?: (end: SpoolPosition) => void;
  /** The batch is in the spool: resolves once its key is on disk too, then marks it done (a failure there is logged). */
  commit(): Promise<void>;
  /** The batch was not stored: the key is let go, so that a retry is stored. */
  abort(): Promise<void>;
}

export const ALREADY_PROCESSED = "already processed";

export interface IdempotencyGuard {
  /** A ticket for the batch (one that does nothing without a key), or ALREADY_PROCESSED; throws 503 while the key is pending. */
  begin(accountId: string, key: string | null, nowMs: number): Promise<Ticket | typeof ALREADY_PROCESSED>;
  /** Stops settling and closes the journal. */
  close(): void;
}

export interface GuardOptions {
  kv: Kv;
  instanceId: string;
  /** The journal's folder, beside the spool. */
  dir: string;
  /** The spool's log as found at start-up: a journal key counts only if its batch ends within it. */
  recoveredEnd: SpoolPosition;
  windowMs: number;
  logger: Logger;
  /** How long a keyed batch waits, right after a start, for the settle job. */
  settleWaitMs?: number;
  /** Between attempts to settle while the shared store cannot be reached. */
  settleRetryMs?: number;
}

const NO_KEY: Ticket = { commit: async () => {}, abort: async () => {} };

const KEY_PENDING = new AppError(
  "SERVICE_UNAVAILABLE",
  "A batch with this X-Idempotency-Key is still being stored; retry shortly",
  undefined,
  { "retry-after": "1" },
);
const NOT_SETTLED = new AppError("SERVICE_UNAVAILABLE", "Idempotency keys are not available yet; retry shortly", undefined, {
  "retry-after": "1",
});

export function openIdempotencyGuard(opts: GuardOptions): IdempotencyGuard {
  const { kv, logger, windowMs } = opts;
  const { journal, keys: stored } = IdempotencyJournal.open(opts.dir, opts.recoveredEnd, {
    windowMs,
    nowMs: Date.now(),
    onError: (err) => logger.error({ msg: "journey idempotency key not written to disk", error: String(err) }),
  });
  const keys = new IdempotencyKeys(kv, opts.instanceId, windowMs);
  const stop = new AbortController();
  const settled = waitable(settleJob(keys, stored, kv, logger, stop.signal, opts.settleRetryMs ?? 1_000), opts.settleWaitMs ?? 5_000);

  const ticket = (key: string, expiresAt: number): Ticket => {
    let durable: Promise<void> | null = null;
    return {
      // The key goes to disk in the same moment as the batch, so that a restart knows the batch was stored.
      beforeWrite: (end) => void (durable = journal.record(key, expiresAt, end)),
      async commit() {
        await durable;
        // Stored: a failure here leaves the key pending, and this instance's next start settles it as done.
        await keys.done(key).catch((err) => logger.error({ msg: "journey idempotency key not marked done", error: String(err) }));
      },
      async abort() {
        await keys.release(key).catch(() => {});
        if (durable) journal.forget(key);
      },
    };
  };

  return {
    async begin(accountId, key, nowMs) {
      if (key === null) return NO_KEY;
      await settled();
      const scoped = `idem:${accountId}:${key}`;
      const claim = await keys.claim(scoped);
      if (claim === "done") return ALREADY_PROCESSED;
      if (claim === "pending") throw KEY_PENDING;
      return ticket(scoped, nowMs + windowMs);
    },
    close() {
      stop.abort();
      journal.close();
    },
  };
}

/**
 * The settle job: the keys whose batches the spool recovered become done (in process memory they are
 * gone after a restart; in Redis they may have been left pending), and the previous process's other
 * pending keys go. Retried until the shared store answers.
 */
async function settleJob(keys: IdempotencyKeys, stored: JournalKey[], kv: Kv, logger: Logger, stop: AbortSignal, retryMs: number) {
  while (!stop.aborted) {
    try {
      const { done, removed } = await keys.settle(stored);
      if (removed > 0 || (done > 0 && kv.kind === "redis"))
        logger.info({ msg: "journey idempotency keys of the previous process settled", done, removed });
      return;
    } catch (err) {
      logger.error({ msg: "journey idempotency keys not settled; retrying", error: String(err) });
      await Bun.sleep(retryMs);
    }
  }
}

/** Waits up to `waitMs` for `job`, then refuses (503); once it has settled, costs nothing. */
function waitable(job: Promise<void>, waitMs: number): () => Promise<void> {
  let done = false;
  void job.then(() => (done = true));
  return async () => {
    if (done) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(resolve, waitMs, "late")));
    const outcome = await Promise.race([job, late]);
    clearTimeout(timer);
    if (outcome === "late") throw NOT_SETTLED;
    done = true;
  };
}
