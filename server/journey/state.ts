// The journey feature's in-process state (link cache, usage meter, idempotency keys and journal), one per
// runtime: shared by its routes and its background job, which the feature registry hands different
// deps objects.
import { join } from "node:path";
import type { AppDeps } from "../app";
import { IdempotencyJournal, type JournalKey } from "../ingest/idempotency-journal";
import { IdempotencyKeys } from "./idempotency";
import { createLinkOwnership, type LinkOwnership } from "./link-cache";
import { createUsageMeter, type UsageMeter } from "./usage";
import { IDEMPOTENCY_WINDOW_MS } from "./model";

export interface JourneyState {
  links: LinkOwnership;
  usage: UsageMeter;
  journal: IdempotencyJournal;
  idempotency: IdempotencyKeys;
  /** Resolves once the keys a previous process of this instance left are settled (see idempotency.ts). */
  settled: Promise<void>;
  /** Stops retrying the settling (the runtime closes). */
  stopSettling(): void;
}

type StateDeps = Pick<AppDeps, "pg" | "kv" | "logger" | "config" | "streams" | "instanceId">;
/** Between attempts to settle the keys while the shared store cannot be reached. */
const SETTLE_RETRY_MS = 1_000;

const states = new WeakMap<object, JourneyState>();

export function journeyState(deps: StateDeps): JourneyState {
  let state = states.get(deps.pg);
  if (!state) {
    const { journal, keys } = openJournal(deps);
    const idempotency = new IdempotencyKeys(deps.kv, deps.instanceId, IDEMPOTENCY_WINDOW_MS);
    const stop = new AbortController();
    state = {
      links: createLinkOwnership(deps.pg.db),
      usage: createUsageMeter(deps.pg.db, deps.kv, {
        onError: (err) => deps.logger.error({ msg: "journey usage not persisted", error: String(err) }),
      }),
      journal,
      idempotency,
      settled: settle(deps, idempotency, keys, stop.signal),
      stopSettling: () => stop.abort(),
    };
    states.set(deps.pg, state);
  }
  return state;
}

/**
 * The keys whose batches the spool recovered become done (in process memory they are gone after a
 * restart; in Redis they may have been left pending), and the previous process's other pending keys go.
 * Retried until the shared store answers.
 */
async function settle(deps: StateDeps, idempotency: IdempotencyKeys, keys: JournalKey[], stop: AbortSignal): Promise<void> {
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

function openJournal(deps: StateDeps): { journal: IdempotencyJournal; keys: JournalKey[] } {
  const nowMs = Date.now();
  return IdempotencyJournal.open(join(deps.config.dataDir, "spool", "journey-idempotency"), deps.streams.journey.recoveredEnd, {
    windowMs: IDEMPOTENCY_WINDOW_MS,
    nowMs,
    onError: (err) => deps.logger.error({ msg: "journey idempotency key not written to disk", error: String(err) }),
  });
}
