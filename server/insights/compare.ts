// `compare=previous|year`, one mechanism for every comparable report: the report runs once over its own
// window and once over the same window shifted back, and the answer is the current report with
// `comparison: { compare, from, to, data, change }` (model.ts `comparable`). The shift is whole weeks,
// so the compared window starts on the same weekday and hour: the period's length rounded up to weeks
// (24h and 7d: 7 days, 30d: 35 days, 90d: 91 days), or 364 days for `year`.
import { DAY_MS } from "../reports/period";
import type { Compare } from "./model";

const WEEK_MS = 7 * DAY_MS;
export const YEAR_SHIFT_MS = 52 * WEEK_MS;

/** A report's window: [fromMs, toMs). */
export interface Window {
  fromMs: number;
  toMs: number;
}

/** How far back the compared window lies, for a report whose nominal length is `lengthMs`. */
export function compareShiftMs(compare: Compare, lengthMs: number): number {
  return compare === "year" ? YEAR_SHIFT_MS : Math.max(1, Math.ceil(lengthMs / WEEK_MS)) * WEEK_MS;
}

export const shiftWindow = (w: Window, byMs: number): Window => ({ fromMs: w.fromMs - byMs, toMs: w.toMs - byMs });

export interface ChangeOf {
  current: number;
  previous: number;
  change_percent: number | null;
}

/** The change of every top-level number of two reports of the same shape. */
export function changeOf(current: object, previous: object): Record<string, ChangeOf> {
  const change: Record<string, ChangeOf> = {};
  for (const [key, value] of Object.entries(current)) {
    const before = (previous as Record<string, unknown>)[key];
    if (typeof value !== "number" || typeof before !== "number") continue;
    change[key] = {
      current: value,
      previous: before,
      change_percent: before === 0 ? null : Math.round(((value - before) / before) * 10_000) / 100,
    };
  }
  return change;
}

/** Events may be dated up to a day ahead (ingest's limit); every report counts them in the current period. */
export const AHEAD_MS = DAY_MS;

/**
 * Runs `report` over `window` (to now; its end moved a day ahead for events dated ahead), and with
 * `compare` over the shifted window too (both at once), and answers the current report with its comparison.
 */
export async function withComparison<R extends object>(
  compare: Compare | undefined,
  window: Window,
  lengthMs: number,
  report: (w: Window) => Promise<R>,
): Promise<R & { comparison?: { compare: Compare; from: string; to: string; data: R; change: Record<string, ChangeOf> } }> {
  const ahead = { fromMs: window.fromMs, toMs: window.toMs + AHEAD_MS };
  if (!compare) return report(ahead);
  const other = shiftWindow(window, compareShiftMs(compare, lengthMs));
  const [current, previous] = await Promise.all([report(ahead), report(other)]);
  return {
    ...current,
    comparison: {
      compare,
      from: new Date(other.fromMs).toISOString(),
      to: new Date(other.toMs).toISOString(),
      data: previous,
      change: changeOf(current, previous),
    },
  };
}
