// Date ranges of the analytics endpoints: from the query (days or start/end dates), then clamped to
// the tier's retention and, over the click budget, to the cutoff date. All dates are UTC.
import { validationError } from "../errors";
import { checkQueryBounds } from "../http/query-bounds";
import type { AnalyticsQuery, DateRange } from "./model";

import { addDays, isoDay, monthStart } from "../reports/period";

export { addDays, isoDay, monthStart };
export const DEFAULT_DAYS = 30;
export const MAX_DAYS = 365;

function parseDay(field: string, value: string): string {
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(ms) || isoDay(ms) !== value) throw validationError(`query.${field}`, "is not a valid calendar date (YYYY-MM-DD)");
  return value;
}

/** The requested range: start_date/end_date override days; end defaults to today. */
export function resolveRange(q: AnalyticsQuery, today: string): DateRange {
  checkQueryBounds(q, { days: [1, MAX_DAYS] });
  const end = q.end_date ? parseDay("end_date", q.end_date) : today;
  const start = q.start_date ? parseDay("start_date", q.start_date) : addDays(end, -((q.days ?? DEFAULT_DAYS) - 1));
  // Without end_date a future start_date is an empty range, as it is with an explicit end_date.
  if (q.end_date && end < start) throw validationError("query.end_date", "must not be before start_date");
  return { start, end: end > today ? today : end };
}

/** Drops the days before `floor` (retention or cutoff); the result may be empty (start > end). */
export function clampRange(range: DateRange, floor: string): DateRange {
  return { start: range.start < floor ? floor : range.start, end: range.end };
}

export const isEmptyRange = (r: DateRange) => r.start > r.end;

/** Every date of the range, in order. */
export function daysOf(r: DateRange): string[] {
  const out: string[] = [];
  for (let d = r.start; d <= r.end; d = addDays(d, 1)) out.push(d);
  return out;
}

/**
 * The earliest date from which the clicks up to today fit in the budget (clicks per day, newest
 * first, this month only: the month's total is over the budget, so the date falls inside it).
 * When today alone is over the budget, today.
 */
export function findCutoffDate(dailyClicks: Map<string, number>, budget: number, today: string): string {
  let sum = dailyClicks.get(today) ?? 0;
  let cutoff = today;
  const first = monthStart(today);
  for (let d = addDays(today, -1); d >= first; d = addDays(d, -1)) {
    sum += dailyClicks.get(d) ?? 0;
    if (sum > budget) break;
    cutoff = d;
  }
  return cutoff;
}
