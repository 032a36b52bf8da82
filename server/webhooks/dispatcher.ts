// The delivery dispatcher: leases due deliveries from Postgres (SKIP LOCKED) and attempts them, up to
// CONCURRENCY at a time. Polls, and wakes at once when the outbox reports a new event.
import type { Job } from "../feature";
import { onEvent } from "./outbox";
import { attemptDelivery, type DeliveryDeps } from "./deliver";
import { ATTEMPT_TIMEOUT_MS } from "./send";
import * as repo from "./repository";

export const LEASE_SECONDS = ATTEMPT_TIMEOUT_MS / 1000 + 20;
const CONCURRENCY = 16;
const POLL_MS = 300;
// The outbox reports an event before the emitting transaction commits; look a moment later.
const WAKE_DELAY_MS = 15;

/** The dispatcher as a Job; runOnce attempts every delivery due now and waits for every attempt in flight. */
export function createDispatcher(deps: DeliveryDeps): Job {
  const stop = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wakeUp: (() => void) | undefined;
  let wokenEarly = false; // a wake-up that came while we were busy shortens the next sleep
  let unsubscribe = () => {};
  let loop: Promise<void> = Promise.resolve();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wakeUp = resolve;
      timer = setTimeout(resolve, wokenEarly ? Math.min(ms, WAKE_DELAY_MS) : ms);
      wokenEarly = false;
    }).finally(() => {
      clearTimeout(timer);
      wakeUp = undefined;
    });
  const wake = () => {
    if (!wakeUp) {
      wokenEarly = true;
      return;
    }
    clearTimeout(timer);
    timer = setTimeout(wakeUp, WAKE_DELAY_MS);
  };

  async function claimAndStart(): Promise<number> {
    const free = CONCURRENCY - inFlight.size;
    if (free <= 0) return 0;
    const ids = await repo.claimDueDeliveries(deps.pg, free, LEASE_SECONDS, deps.instanceId);
    if (ids.length === 0) return 0;
    for (const { delivery, endpoint } of await repo.loadJobs(deps.pg.db, ids)) {
      const job = attemptDelivery(deps, delivery, endpoint, stop.signal)
        .catch((err) => deps.logger.error({ msg: "webhook attempt failed", delivery_id: delivery.id, error: String(err) }))
        .finally(() => {
          inFlight.delete(job);
          wake();
        });
      inFlight.add(job);
    }
    return ids.length;
  }

  const run = async () => {
    // What this instance's previous process leased and never attempted (a crash) is due again at once.
    const released = await (deps.pg.kind === "pglite"
      ? repo.releaseAllLeases(deps.pg.db).then(() => 0)
      : repo.releaseLeasesOf(deps.pg.db, deps.instanceId)
    ).catch((err) => (deps.logger.error({ msg: "webhook leases not released", error: String(err) }), 0));
    if (released > 0) deps.logger.info({ msg: "webhook leases of the previous process released", count: released });
    while (!stop.signal.aborted) {
      let claimed = 0;
      try {
        claimed = await claimAndStart();
      } catch (err) {
        if (!stop.signal.aborted) deps.logger.error({ msg: "webhook dispatch failed", error: String(err) });
      }
      if (stop.signal.aborted) break;
      // A full batch means more may be due: claim again as soon as a slot frees up.
      await sleep(claimed > 0 && inFlight.size < CONCURRENCY ? 0 : POLL_MS);
    }
  };

  return {
    start() {
      unsubscribe = onEvent(wake);
      loop = run();
    },
    async runOnce() {
      for (;;) {
        const claimed = await claimAndStart();
        if (claimed === 0 && inFlight.size === 0) return;
        if (claimed === 0 || inFlight.size >= CONCURRENCY) await Promise.race(inFlight);
      }
    },
    async stop() {
      stop.abort();
      unsubscribe();
      clearTimeout(timer);
      wakeUp?.();
      await loop;
      await Promise.allSettled([...inFlight]);
    },
  };
}
