// The analytics job: stores the visitor numbers of closed days (click_visitor_days, visitor-days.ts) and
// recomputes the days whose clicks changed since (late clicks, a spool replayed after an outage). Reports
// stay exact without it; it makes them cheap.
import type { Clickhouse } from "../storage/clickhouse/client";
import { addDays, isoDay } from "./range";
import { findStaleDays, storeVisitorDays, VISITOR_REPORTS } from "./queries/visitor-days";

/** How far back late clicks are looked for: a report covers at most 365 days. */
const LOOKBACK_DAYS = 366;
/** Days computed per statement (each reads its days and the days before them). */
const BATCH_DAYS = 7;

/** One round: every report's stale or missing days up to yesterday. Returns the account-days stored. */
export async function refreshVisitorDays(ch: Clickhouse, now = Date.now(), stopping?: AbortSignal): Promise<number> {
  const today = isoDay(now);
  let stored = 0;
  for (const report of VISITOR_REPORTS) {
    const stale = await findStaleDays(ch, report, addDays(today, -LOOKBACK_DAYS), today);
    for (const [accountId, days] of stale) {
      for (let i = 0; i < days.length; i += BATCH_DAYS) {
        if (stopping?.aborted) return stored;
        const batch = days.slice(i, i + BATCH_DAYS);
        await storeVisitorDays(ch, report, accountId, batch);
        stored += batch.length;
      }
    }
  }
  return stored;
}
