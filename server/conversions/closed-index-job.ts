// The journey job's round loads the conversion reports' in-memory indexes asked for lately
// (closed-index.ts): a piece per index, each reported on its own when it fails.
import type { Clickhouse } from "../storage/clickhouse/client";
import { type IndexedDimension, refreshBreakdownIndex } from "./breakdown-index";
import { askedIndexes, type IndexDemand, wouldEvict } from "./closed-index";
import { refreshTimeToConvertIndex } from "./time-to-convert-index";

/**
 * Brings every asked index of `ch` (the reports' client) up to the open hour, its queries run on
 * `queries`; `attempt` runs each piece (the job's failure handling). Memory only: nothing is written.
 */
export async function refreshConversionIndexes(
  ch: Clickhouse,
  nowMs: number,
  queries: Clickhouse,
  attempt: (d: IndexDemand, run: () => Promise<boolean>) => Promise<void>,
  stopping?: AbortSignal,
) {
  for (const d of askedIndexes(ch, nowMs)) {
    if (stopping?.aborted) return;
    if (wouldEvict(ch, d)) continue;
    await attempt(d, () =>
      d.kind === "breakdown"
        ? refreshBreakdownIndex(ch, d.scope, d.dimension as IndexedDimension, nowMs, queries)
        : refreshTimeToConvertIndex(ch, d.scope, nowMs, queries),
    );
  }
}
