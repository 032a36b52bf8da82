// A Job (feature.ts) that runs one task every so often. Rounds never overlap: the timer and runOnce
// queue behind the round in progress.
import type { Job } from "./feature";
import type { Clickhouse } from "./storage/clickhouse/client";

export interface PeriodicJobOptions {
  everyMs: number;
  /** Delay of the first round after start (default: a whole period). 0 runs one at once. */
  firstAfterMs?: number;
  /** One round. `stopping` is aborted by stop(), so that a long round can end early. */
  run: (stopping: AbortSignal) => Promise<unknown>;
  /** Reports a failed round of the timer (runOnce rejects instead). */
  onError: (err: unknown) => void;
  /** Runs after the last round, at stop (a final write, closing files). */
  finish?: () => Promise<void> | void;
}

export function periodicJob(opts: PeriodicJobOptions): Job {
  const stopping = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  const timers: ReturnType<typeof setTimeout>[] = [];
  const intervals: ReturnType<typeof setInterval>[] = [];
  const round = () => {
    const next = running.then(() => (stopping.signal.aborted ? undefined : opts.run(stopping.signal)));
    running = next.catch(() => {});
    return next;
  };
  const fromTimer = () => void round().catch((err) => stopping.signal.aborted || opts.onError(err));
  return {
    start() {
      const first = opts.firstAfterMs;
      if (first !== undefined && first < opts.everyMs) timers.push(setTimeout(fromTimer, first));
      intervals.push(setInterval(fromTimer, opts.everyMs));
      for (const t of [...timers, ...intervals]) t.unref?.();
    },
    async runOnce() {
      await round();
    },
    async stop() {
      stopping.abort();
      for (const t of timers) clearTimeout(t);
      for (const t of intervals) clearInterval(t);
      await running;
      await opts.finish?.();
    },
  };
}

/**
 * A periodic job whose rounds query ClickHouse through a client of their own (`forBackground`): under the
 * jobs' time limit, not the reports' (a job may read months of rows), and given up at stop.
 */
export function backgroundQueryJob(ch: Clickhouse, limitMs: number, options: (queries: Clickhouse) => PeriodicJobOptions): Job {
  const stop = new AbortController();
  const queries = ch.forBackground({ limitMs, signal: stop.signal });
  const opts = options(queries);
  const job = periodicJob({
    ...opts,
    finish: async () => {
      await opts.finish?.();
      await queries.close();
    },
  });
  return {
    ...job,
    stop: () => {
      stop.abort();
      return job.stop();
    },
  };
}

/** Several jobs of one feature as one. */
export function jobs(...all: Job[]): Job {
  return {
    start: () => {
      for (const j of all) j.start();
    },
    runOnce: async () => {
      for (const j of all) await j.runOnce();
    },
    stop: async () => {
      await Promise.all(all.map((j) => j.stop()));
    },
  };
}
