// `compare=previous|year`, one mechanism for every comparable report (click, journey, conversion and
// insight reports): the report runs once over its own window and once over the same window shifted
// back, and the answer carries `comparison: { compare, from, to, data, change }` (compare-model.ts).
// The shift is whole weeks, so the compared window starts on the same weekday and hour: the window's
// length rounded up to weeks (1 and 7 days: 7 days, 30 days: 35, 90 days: 91), or 364 days for `year`.
import { DAY_MS, HOUR_MS } from "./period";
import { storedAnswer, type ComparedStore } from "./compared-store";

export const COMPARE = ["previous", "year"] as const;
export type Compare = (typeof COMPARE)[number];

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

/**
 * The window of a rolling-period report (journey, conversions) to compare: its whole hours, the hour
 * holding now counted whole, and never longer than the shift, so the compared window ends at the latest
 * where the current one starts (a 7-day period with its open hour is longer than the week it shifts by).
 */
export const rollingWindow = (compare: Compare, fromMs: number, lengthMs: number, nowMs: number): Window => ({
  fromMs,
  toMs: Math.min(Math.ceil(nowMs / HOUR_MS) * HOUR_MS, fromMs + compareShiftMs(compare, lengthMs)),
});

export const shiftWindow = (w: Window, byMs: number): Window => ({ fromMs: w.fromMs - byMs, toMs: w.toMs - byMs });

export interface ChangeOf {
  current: number;
  previous: number;
  change_percent: number | null;
}

export interface Comparison<R> {
  compare: Compare;
  from: string;
  to: string;
  data: R;
  change: Record<string, ChangeOf>;
}

/** The change of every top-level number of two reports (or of their figures) of the same shape. */
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

/** The figures of a list report: the sum of each of `fields` over its rows. */
export const rowTotals =
  (...fields: string[]) =>
  (rows: readonly object[]) =>
    Object.fromEntries(fields.map((f) => [f, rows.reduce((a, r) => a + Number((r as Record<string, unknown>)[f] ?? 0), 0)]));

/** Events may be dated up to a day ahead (ingest's limit); the event reports count them in the current period. */
export const AHEAD_MS = DAY_MS;

export interface CompareOptions<R> {
  /** How far the current window's end moves ahead (events dated ahead); 0 by default. */
  aheadMs?: number;
  /** The numbers `change` compares; by default the report's own top-level numbers. */
  figures?: (report: R) => object;
  /**
   * Where the compared window's answer is kept (compared-store.ts): read from there while its source rows
   * are unchanged. Only for a window ending at a fixed instant (whole hours), or no read would find it.
   */
  store?: ComparedStore;
}

/**
 * Runs `report` over `window` (its end moved `aheadMs` ahead), and with `compare` over the shifted
 * window too (both at once). Without `compare`, one call and nothing else.
 */
export async function compareReports<R>(
  compare: Compare | undefined,
  window: Window,
  lengthMs: number,
  report: (w: Window, current: boolean) => Promise<R>,
  options: CompareOptions<R> = {},
): Promise<{ current: R; comparison?: Comparison<R> }> {
  const ahead = options.aheadMs ? { fromMs: window.fromMs, toMs: window.toMs + options.aheadMs } : window;
  if (!compare) return { current: await report(ahead, true) };
  const other = shiftWindow(window, compareShiftMs(compare, lengthMs));
  const { store } = options;
  const [current, previous] = await Promise.all([
    report(ahead, true),
    store ? storedAnswer(store, other, () => report(other, false)) : report(other, false),
  ]);
  const figures = options.figures ?? ((r: R) => r as object);
  return {
    current,
    comparison: {
      compare,
      from: new Date(other.fromMs).toISOString(),
      to: new Date(other.toMs).toISOString(),
      data: previous,
      change: changeOf(figures(current), figures(previous)),
    },
  };
}

/** compareReports for a report that is an object: the current report with its `comparison` beside its fields. */
export async function withComparison<R extends object>(
  compare: Compare | undefined,
  window: Window,
  lengthMs: number,
  report: (w: Window, current: boolean) => Promise<R>,
  options: CompareOptions<R> = {},
): Promise<R & { comparison?: Comparison<R> }> {
  const { current, comparison } = await compareReports(compare, window, lengthMs, report, options);
  return comparison ? { ...current, comparison } : current;
}
