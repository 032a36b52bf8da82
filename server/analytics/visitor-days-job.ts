// The analytics job: stores the visitor numbers of closed days (click_visitor_days, visitor-days.ts) and
// recomputes the days whose clicks changed since (late clicks, a spool replayed after an outage). Reports
// stay exact without it; it makes them cheap.
import type { Clickhouse } from "../storage/clickhouse/client";
import { addDays, isoDay } from "./range";
import { findStaleDays, findTouchedDays, storeVisitorDays, VISITOR_REPORTS } from "./queries/visitor-days";

/** How far back late clicks are looked for: a report covers at most 365 days. */
const LOOKBACK_DAYS = 366;
/** Days computed per statement (each reads its days and the days before them). */
const BATCH_DAYS = 7;
/** Clicks stamped by ClickHouse before the round's start that become visible after it (an insert in flight). */
const MARGIN_MS = 10 * 60_000;

/**
 * One round: every report's stale or missing days up to yesterday. Returns the account-days stored.
 * With `sinceMs` (the start of the last complete round, by this process's clock), only the days that
 * received clicks since then (migration 0240), the day after each (its overlap) and the days that ended
 * since then are looked at; without it, every day of the last year.
 */
export async function refreshVisitorDays(ch: Clickhouse, now = Date.now(), stopping?: AbortSignal, sinceMs?: number): Promise<number> {
  const today = isoDay(now);
  const from = addDays(today, -LOOKBACK_DAYS);
  let only: Map<string, string[]> | undefined;
  if (sinceMs !== undefined) {
    const closing: string[] = [];
    for (let d = isoDay(sinceMs); d < today; d = addDays(d, 1)) closing.push(d);
    const touched = await findTouchedDays(ch, (now - sinceMs + MARGIN_MS) / 1000, closing);
    only = new Map(
      [...touched].map(([a, days]) => [a, [...new Set(days.flatMap((d) => [d, addDays(d, 1)]))].filter((d) => d >= from && d < today)]),
    );
    if (![...only.values()].some((days) => days.length > 0)) return 0;
  }
  let stored = 0;
  for (const report of VISITOR_REPORTS) {
    const stale = await findStaleDays(ch, report, from, today, only);
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

/**
 * The job of one process: its first round looks at every day (what happened while no instance ran, or
 * before migration 0240); each later one at the days that received clicks since the last complete round.
 */
export function visitorDaysRefresher(ch: Clickhouse) {
  let since: number | undefined;
  return async (stopping?: AbortSignal) => {
    const started = Date.now();
    const stored = await refreshVisitorDays(ch, started, stopping, since);
    if (!stopping?.aborted) since = started;
    return stored;
  };
}
