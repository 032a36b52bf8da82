// The journey feature's in-process state (link cache, usage meter, idempotency journal), one per
// runtime: shared by its routes and its background job, which the feature registry hands different
// deps objects.
import { join } from "node:path";
import type { AppDeps } from "../app";
import { IdempotencyJournal } from "../ingest/idempotency-journal";
import { createLinkOwnership, type LinkOwnership } from "./link-cache";
import { createUsageMeter, type UsageMeter } from "./usage";
import { IDEMPOTENCY_WINDOW_MS } from "./model";

export interface JourneyState {
  links: LinkOwnership;
  usage: UsageMeter;
  journal: IdempotencyJournal | null;
}

const states = new WeakMap<object, JourneyState>();

export function journeyState(deps: Pick<AppDeps, "pg" | "kv" | "logger" | "config" | "streams">): JourneyState {
  let state = states.get(deps.pg);
  if (!state) {
    state = {
      links: createLinkOwnership(deps.pg.db),
      usage: createUsageMeter(deps.pg.db, deps.kv, {
        onError: (err) => deps.logger.error({ msg: "journey usage not persisted", error: String(err) }),
      }),
      journal: deps.kv.kind === "memory" ? openJournal(deps) : null,
    };
    states.set(deps.pg, state);
  }
  return state;
}

/**
 * The keys of the last window come back from disk into the in-process store (Redis keeps its own).
 * The memory store sets a key before its promise is returned, so they are all there before the first
 * request.
 */
function openJournal(deps: Pick<AppDeps, "kv" | "logger" | "config" | "streams">): IdempotencyJournal {
  const nowMs = Date.now();
  const { journal, keys } = IdempotencyJournal.open(
    join(deps.config.dataDir, "spool", "journey-idempotency"),
    deps.streams.journey.recoveredEnd,
    {
      windowMs: IDEMPOTENCY_WINDOW_MS,
      nowMs,
      onError: (err) => deps.logger.error({ msg: "journey idempotency key not written to disk", error: String(err) }),
    },
  );
  for (const k of keys) void deps.kv.setIfAbsent(k.key, k.expiresAt - nowMs);
  return journal;
}
