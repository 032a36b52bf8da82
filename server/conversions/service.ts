// The conversion reports (docs/api.md "Conversions"); no Elysia here.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { DbOrTx } from "../storage/postgres/client";
import { PERIODS, periodStartMs, type Period } from "../reports/period";
import { changeOf, compareReports, rollingWindow, withComparison, type Compare, type Comparison } from "../reports/compare";
import { money, percent, round2 } from "../reports/numbers";
import { resolveReportScope } from "../reports/scope";
import { journeyStore } from "../reports/compared-store";
import { TIME_TO_CONVERT_BUCKETS, type Dimension, type Interval } from "./model";
import * as queries from "./queries";
import { importedConversionFigures } from "../imports/read";

export interface ConversionDeps {
  db: DbOrTx;
  ch: Clickhouse;
}
export interface ScopeQuery {
  period?: Period;
  domain_id?: string;
  link_id?: string;
}
export interface ComparableQuery extends ScopeQuery {
  compare?: Compare;
}

/** The account's scope (reports/scope.ts); 404 when link_id or domain_id is unknown, another account's, or a deleted link. */
async function resolveScope(db: DbOrTx, accountId: string, q: ScopeQuery, nowMs: number): Promise<queries.Scope> {
  const s = await resolveReportScope(db, accountId, { linkId: q.link_id, domainId: q.domain_id }, periodStartMs(q.period, nowMs));
  return { accountId, fromMs: s.period, ...(s.linkIds ? { linkIds: s.linkIds } : {}) };
}

/**
 * The report over the scope's period, and with `compare` over the compared window too (reports/compare.ts):
 * the period's whole hours shifted back (the hour holding now counted whole, and never past the current
 * period's start), read with an end bound.
 */
async function compared<R extends object>(
  deps: ConversionDeps,
  accountId: string,
  q: ComparableQuery,
  run: (s: queries.Scope) => Promise<R>,
  report?: StoredAs,
): Promise<R & { comparison?: Comparison<R> }> {
  const nowMs = Date.now();
  const scope = await resolveScope(deps.db, accountId, q, nowMs);
  if (!q.compare) return run(scope);
  const lengthMs = PERIODS[q.period ?? "30d"] * 1000;
  const store = report && journeyStore(deps.ch, accountId, scope.linkIds, report.name, report.params);
  return withComparison(
    q.compare,
    rollingWindow(q.compare, scope.fromMs, lengthMs, nowMs),
    lengthMs,
    (w, current) => run(current ? scope : { ...scope, fromMs: w.fromMs, toMs: w.toMs }),
    { store },
  );
}

/** The name and parameters a report's compared window is stored under (reports/compared-store.ts). */
interface StoredAs {
  name: string;
  params: unknown;
}

export async function getConversionSummary(deps: ConversionDeps, accountId: string, q: ComparableQuery) {
  // One link's goals imported from another product (imports/plausible-query.ts), beside our counts, never in them.
  const [summary, imported] = await Promise.all([
    compared(deps, accountId, q, (scope) => conversionSummaryOf(deps, scope), { name: "conversions.summary", params: null }),
    q.link_id ? importedConversionFigures(deps.ch, accountId, q.link_id.toLowerCase()) : null,
  ]);
  return imported ? { imported, ...summary } : summary;
}

async function conversionSummaryOf(deps: ConversionDeps, scope: queries.Scope) {
  const totals = await queries.getConversionTotals(deps.ch, scope);
  const revenue = money(totals.revenueCents);
  return {
    total_conversions: totals.conversions,
    unique_converters: totals.converters,
    total_revenue: revenue,
    average_order_value: totals.conversions ? round2(revenue / totals.conversions) : 0,
    conversion_rate: percent(totals.converters, totals.visitors),
  };
}

const HOUR = 3600;

/** Start (epoch seconds, UTC) of the bucket holding `sec`. */
export function bucketStart(sec: number, interval: Interval): number {
  const d = new Date(sec * 1000);
  if (interval === "hour") return Math.floor(sec / HOUR) * HOUR;
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) / 1000;
  if (interval === "day") return day;
  if (interval === "week") return day - ((d.getUTCDay() + 6) % 7) * 24 * HOUR;
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
}

function nextBucket(sec: number, interval: Interval): number {
  if (interval === "hour") return sec + HOUR;
  if (interval === "day") return sec + 24 * HOUR;
  if (interval === "week") return sec + 7 * 24 * HOUR;
  const d = new Date(sec * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}

/**
 * A list report over the scope's period; with `compare` the list under `analytics` and the same list over
 * the compared window under `comparison` (the click list reports' shape), its change over the rows' sums.
 */
async function comparedList<R extends { conversions: number; revenue: number }>(
  deps: ConversionDeps,
  accountId: string,
  q: ComparableQuery,
  /** null: the compared window is computed on every call (its answer reads what the fingerprint does not cover). */
  report: StoredAs | null,
  run: (s: queries.Scope, nowMs: number) => Promise<R[]>,
): Promise<R[] | ComparedList<R>> {
  const nowMs = Date.now();
  const scope = await resolveScope(deps.db, accountId, q, nowMs);
  if (!q.compare) return run(scope, nowMs);
  const lengthMs = PERIODS[q.period ?? "30d"] * 1000;
  const { current, comparison } = await compareReports(
    q.compare,
    rollingWindow(q.compare, scope.fromMs, lengthMs, nowMs),
    lengthMs,
    (w, isCurrent) => run(isCurrent ? scope : { ...scope, fromMs: w.fromMs, toMs: w.toMs }, nowMs),
    { figures: listTotals, store: report ? journeyStore(deps.ch, accountId, scope.linkIds, report.name, report.params) : undefined },
  );
  return { analytics: current, comparison };
}

/** The list reports' figures: conversions and revenue summed over their rows. */
const listTotals = (rows: readonly { conversions: number; revenue: number }[]) => ({
  conversions: rows.reduce((a, r) => a + r.conversions, 0),
  revenue: round2(rows.reduce((a, r) => a + r.revenue, 0)),
});

export interface ConversionPoint {
  timestamp: string;
  conversions: number;
  revenue: number;
}
export interface ConversionBreakdownRow {
  label: string;
  conversions: number;
  revenue: number;
  conversion_rate: number;
}
/** A list report's answer with `compare`. */
export interface ComparedList<R> {
  analytics: R[];
  comparison?: Comparison<R[]>;
}

/** The points; with `compare`, `{ analytics, comparison }` (comparedList). */
export function getConversionTimeseries(
  deps: ConversionDeps,
  accountId: string,
  q: ScopeQuery & { interval?: Interval },
): Promise<ConversionPoint[]>;
export function getConversionTimeseries(
  deps: ConversionDeps,
  accountId: string,
  q: ComparableQuery & { interval?: Interval },
): Promise<ConversionPoint[] | ComparedList<ConversionPoint>>;
export async function getConversionTimeseries(deps: ConversionDeps, accountId: string, q: ComparableQuery & { interval?: Interval }) {
  const interval = q.interval ?? "day";
  return comparedList(deps, accountId, q, { name: "conversions.timeseries", params: { interval } }, async (scope, nowMs) => {
    const rows = await queries.getConversionBuckets(deps.ch, scope, interval);
    const byBucket = new Map(rows.map((r) => [r.bucket, r]));
    // A compared window ends at its end; the current period at now (or a bucket of events dated ahead).
    const end =
      scope.toMs === undefined
        ? Math.max(bucketStart(Math.floor(nowMs / 1000), interval), rows.at(-1)?.bucket ?? 0)
        : bucketStart(Math.floor((scope.toMs - 1) / 1000), interval);
    const points: ConversionPoint[] = [];
    for (let b = bucketStart(Math.floor(scope.fromMs / 1000), interval); b <= end; b = nextBucket(b, interval)) {
      const r = byBucket.get(b);
      points.push({ timestamp: new Date(b * 1000).toISOString(), conversions: r?.conversions ?? 0, revenue: money(r?.revenueCents ?? 0) });
    }
    return points;
  });
}

/** The rows; with `compare`, `{ analytics, comparison }` (comparedList). */
export function getConversionBreakdown(
  deps: ConversionDeps,
  accountId: string,
  q: ScopeQuery & { dimension: Dimension },
): Promise<ConversionBreakdownRow[]>;
export function getConversionBreakdown(
  deps: ConversionDeps,
  accountId: string,
  q: ComparableQuery & { dimension: Dimension },
): Promise<ConversionBreakdownRow[] | ComparedList<ConversionBreakdownRow>>;
export async function getConversionBreakdown(deps: ConversionDeps, accountId: string, q: ComparableQuery & { dimension: Dimension }) {
  // A variant's rows join the clicks, which the stored window's fingerprint (the event bundles) does not cover.
  const report = q.dimension === "variant" ? null : { name: "conversions.breakdown", params: { dimension: q.dimension } };
  return comparedList(deps, accountId, q, report, async (scope): Promise<ConversionBreakdownRow[]> => {
    const rows = await queries.getConversionBreakdown(deps.ch, scope, q.dimension);
    return rows
      .map((r) => ({
        label: r.label || "unknown",
        conversions: r.conversions,
        revenue: money(r.revenueCents),
        conversion_rate: percent(r.converters, r.visitors),
      }))
      .sort((a, b) => b.conversions - a.conversions || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  });
}

export async function getTimeToConvert(deps: ConversionDeps, accountId: string, q: ComparableQuery) {
  const report = await compared(deps, accountId, q, (scope) => timeToConvertOf(deps, scope));
  if (!report.comparison) return report;
  // Buckets are a list: their counts are compared under their labels.
  const counts = (r: Awaited<ReturnType<typeof timeToConvertOf>>) => Object.fromEntries(r.buckets.map((b) => [b.label, b.count]));
  const change = changeOf(counts(report), counts(report.comparison.data));
  return { ...report, comparison: { ...report.comparison, change: { ...report.comparison.change, ...change } } };
}

async function timeToConvertOf(deps: ConversionDeps, scope: queries.Scope) {
  const result = await queries.getTimeToConvert(deps.ch, scope);
  return {
    buckets: TIME_TO_CONVERT_BUCKETS.map((label, i) => ({ label, count: result.counts[i] })),
    average_seconds: round2(result.averageSeconds),
    median_seconds: round2(result.medianSeconds),
  };
}
