// The conversion reports (docs/api.md "Conversions"); no Elysia here.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { DbOrTx } from "../storage/postgres/client";
import { periodStartMs, type Period } from "../reports/period";
import { money, percent, round2 } from "../reports/numbers";
import { resolveReportScope } from "../reports/scope";
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

/** The account's scope (reports/scope.ts); 404 when link_id or domain_id is unknown, another account's, or a deleted link. */
async function resolveScope(db: DbOrTx, accountId: string, q: ScopeQuery, nowMs: number): Promise<queries.Scope> {
  const s = await resolveReportScope(db, accountId, { linkId: q.link_id, domainId: q.domain_id }, periodStartMs(q.period, nowMs));
  return { accountId, fromMs: s.period, ...(s.linkIds ? { linkIds: s.linkIds } : {}) };
}

export async function getConversionSummary(deps: ConversionDeps, accountId: string, q: ScopeQuery) {
  const scope = await resolveScope(deps.db, accountId, q, Date.now());
  // One link's goals imported from another product (imports/plausible-query.ts), beside our counts, never in them.
  const [totals, imported] = await Promise.all([
    queries.getConversionTotals(deps.ch, scope),
    q.link_id && scope.linkIds?.length === 1 ? importedConversionFigures(deps.ch, accountId, scope.linkIds[0]) : null,
  ]);
  const revenue = money(totals.revenueCents);
  return {
    ...(imported ? { imported } : {}),
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

export async function getConversionTimeseries(deps: ConversionDeps, accountId: string, q: ScopeQuery & { interval?: Interval }) {
  const nowMs = Date.now();
  const interval = q.interval ?? "day";
  const scope = await resolveScope(deps.db, accountId, q, nowMs);
  const rows = await queries.getConversionBuckets(deps.ch, scope, interval);
  const byBucket = new Map(rows.map((r) => [r.bucket, r]));
  const last = Math.max(bucketStart(Math.floor(nowMs / 1000), interval), rows.at(-1)?.bucket ?? 0);
  const points = [];
  for (let b = bucketStart(Math.floor(scope.fromMs / 1000), interval); b <= last; b = nextBucket(b, interval)) {
    const r = byBucket.get(b);
    points.push({ timestamp: new Date(b * 1000).toISOString(), conversions: r?.conversions ?? 0, revenue: money(r?.revenueCents ?? 0) });
  }
  return points;
}

export async function getConversionBreakdown(deps: ConversionDeps, accountId: string, q: ScopeQuery & { dimension: Dimension }) {
  const scope = await resolveScope(deps.db, accountId, q, Date.now());
  const rows = await queries.getConversionBreakdown(deps.ch, scope, q.dimension);
  return rows
    .map((r) => ({
      label: r.label || "unknown",
      conversions: r.conversions,
      revenue: money(r.revenueCents),
      conversion_rate: percent(r.converters, r.visitors),
    }))
    .sort((a, b) => b.conversions - a.conversions || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}

export async function getTimeToConvert(deps: ConversionDeps, accountId: string, q: ScopeQuery) {
  const result = await queries.getTimeToConvert(deps.ch, await resolveScope(deps.db, accountId, q, Date.now()));
  return {
    buckets: TIME_TO_CONVERT_BUCKETS.map((label, i) => ({ label, count: result.counts[i] })),
    average_seconds: round2(result.averageSeconds),
    median_seconds: round2(result.medianSeconds),
  };
}
