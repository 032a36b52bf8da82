// The periods of the reports, one copy of the arithmetic: the click reports' UTC days (analytics
// range.ts builds its ranges from these) and the journey and conversion reports' rolling periods of
// whole UTC hours.
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** The UTC date (YYYY-MM-DD) of an instant. */
export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const addDays = (day: string, n: number) => isoDay(Date.parse(day) + n * DAY_MS);
export const monthStart = (day: string) => `${day.slice(0, 7)}-01`;

/** The journey and conversion reports' periods, in seconds. */
export const PERIODS = { "24h": 86_400, "7d": 7 * 86_400, "30d": 30 * 86_400, "90d": 90 * 86_400 } as const;
export type Period = keyof typeof PERIODS;

/** Periods are whole UTC hours (the rollups' grain): 24h is the current hour and the 24 before it. */
export const periodStartMs = (period: Period = "30d", nowMs = Date.now()) =>
  Math.floor((nowMs - PERIODS[period] * 1000) / HOUR_MS) * HOUR_MS;
