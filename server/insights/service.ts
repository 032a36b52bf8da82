// The insight reports of one link (paths, retention), each with its optional comparison; no Elysia here.
import { validationError } from "../errors";
import { percent } from "../reports/numbers";
import { DAY_MS, HOUR_MS, PERIODS, periodStartMs, type Period } from "../reports/period";
import { journeyStore } from "../reports/compared-store";
import { resolveReportScope } from "../reports/scope";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { DbOrTx } from "../storage/postgres/client";
import { AHEAD_MS, compareShiftMs, shiftWindow, withComparison, type Window } from "../reports/compare";
import type { Compare, PathsReport, RetentionReport } from "./model";
import { BUNDLE_EVENT_TYPES, queryLabels, queryPaths, type PathRow } from "./paths-query";
import { queryRetention, type RetentionRow } from "./retention-query";
import { notePathsWindow, pathIndexHeld, retentionIndexReader } from "../journey/read";

export interface InsightDeps {
  db: DbOrTx;
  ch: Clickhouse;
}

const WEEK_MS = 7 * DAY_MS;

/** The link's id; 404 for an unknown, deleted or another account's link alike (reports/scope.ts). */
async function ownedLink(db: DbOrTx, accountId: string, linkId: string) {
  const scope = await resolveReportScope(db, accountId, { linkId }, null);
  return scope.link!.id;
}

export interface PathsQueryArgs {
  period?: Period;
  start?: string;
  end?: string;
  steps?: number;
  limit?: number;
  compare?: Compare;
}

export async function getPaths(deps: InsightDeps, accountId: string, linkId: string, q: PathsQueryArgs, nowMs = Date.now()) {
  if ((q.start === undefined) === (q.end === undefined)) throw validationError("query.start", "give either start or end (not both)");
  const link = await ownedLink(deps.db, accountId, linkId);
  const period = q.period ?? "30d";
  const direction: "forward" | "backward" = q.start !== undefined ? "forward" : "backward";
  const target = (q.start ?? q.end) as string;
  const args = { steps: q.steps ?? 5, limit: q.limit ?? 10 };
  // The compared window ends on a whole hour, the hour holding now counted whole (as the rolling reports'
  // do), so its answer is kept for the hour (reports/compared-store.ts); the current one ends a day after now.
  const hourEnd = Math.ceil(nowMs / HOUR_MS) * HOUR_MS;
  const window = { fromMs: periodStartMs(period, nowMs), toMs: hourEnd };
  // The compared window's range is noted for the journey job even when the store answers it.
  const compared = q.compare && {
    accountId,
    linkId: link,
    window: shiftWindow(window, compareShiftMs(q.compare, PERIODS[period] * 1000)),
    target,
    direction,
    steps: args.steps,
  };
  if (compared) notePathsWindow(deps.ch, compared, nowMs);
  return withComparison(
    q.compare,
    window,
    PERIODS[period] * 1000,
    async (w) => {
      const rows = await queryPaths(deps.ch, { accountId, linkId: link, window: w, target, direction, steps: args.steps }, nowMs);
      return buildPaths(rows, direction, target, args.limit, (hashes) => queryLabels(deps.ch, accountId, link, w, hashes));
    },
    {
      aheadMs: AHEAD_MS - (hourEnd - nowMs),
      // The compared window's answer kept in the compared-window store, unless the journey job holds its
      // range in memory (as exact, and cheaper than the store's read and fingerprint).
      store:
        compared && pathIndexHeld(deps.ch, compared, nowMs)
          ? undefined
          : journeyStore(deps.ch, accountId, [link], "insights.paths", { target, direction, ...args }),
    },
  );
}

const nodeKey = (ty: number, lb: string) => `${ty}:${lb}`;
/** Labels of page views are page URLs ('page' top values), of other events their names ('event'). */
const labelKey = (ty: number, lb: string) => `${ty === 1 ? "page" : "event"}:${lb}`;

async function buildPaths(
  rows: PathRow[],
  direction: "forward" | "backward",
  target: string,
  limit: number,
  labels: (hashes: string[]) => Promise<Map<string, string>>,
): Promise<PathsReport> {
  // Per step, the visitors at each node and those who left there.
  const steps = new Map<number, Map<string, { ty: number; lb: string; visitors: number; left: number }>>();
  for (const r of rows) {
    const nodes = steps.get(r.k) ?? new Map();
    steps.set(r.k, nodes);
    const key = nodeKey(r.ty, r.lb);
    const node = nodes.get(key) ?? { ty: r.ty, lb: r.lb, visitors: 0, left: 0 };
    nodes.set(key, node);
    node.visitors += r.n;
    if (r.nty === 0) node.left += r.n;
  }
  const shown = new Map<number, Set<string>>();
  const hashes = new Set<string>();
  const byStep = [...steps.keys()]
    .sort((a, b) => a - b)
    .map((k) => {
      const all = [...steps.get(k)!.values()].sort(
        (a, b) => b.visitors - a.visitors || nodeKey(a.ty, a.lb).localeCompare(nodeKey(b.ty, b.lb)),
      );
      const top = all.slice(0, limit);
      shown.set(k, new Set(top.map((n) => nodeKey(n.ty, n.lb))));
      for (const n of top) if (n.lb !== "0") hashes.add(n.lb);
      const sum = (xs: typeof all, f: (n: (typeof all)[number]) => number) => xs.reduce((a, n) => a + f(n), 0);
      return {
        k,
        top,
        visitors: sum(all, (n) => n.visitors),
        left: sum(all, (n) => n.left),
        other: sum(all.slice(limit), (n) => n.visitors),
      };
    });
  const names = await labels([...hashes]);
  const nameOf = (ty: number, lb: string) =>
    lb === "0" ? (BUNDLE_EVENT_TYPES[ty - 1] ?? "event") : (names.get(labelKey(ty, lb)) ?? `#${lb}`);
  const kindOf = (ty: number) => BUNDLE_EVENT_TYPES[ty - 1] ?? "event";
  const idOf = (k: number, ty: number, lb: string) => `${k}_${kindOf(ty)}:${nameOf(ty, lb)}`;
  const edges = rows
    .filter((r) => r.nty !== 0 && shown.get(r.k)?.has(nodeKey(r.ty, r.lb)) && shown.get(r.k + 1)?.has(nodeKey(r.nty, r.nlb)))
    .sort((a, b) => a.k - b.k || b.n - a.n)
    .map((r) => ({
      source: idOf(r.k, r.ty, r.lb),
      target: idOf(r.k + 1, r.nty, r.nlb),
      visitors: r.n,
      median_seconds: r.medianMs / 1000,
    }));
  return {
    direction,
    target,
    visitors: byStep[0]?.visitors ?? 0,
    steps: byStep.map((s) => ({
      step: s.k,
      visitors: s.visitors,
      left: s.left,
      other_visitors: s.other,
      nodes: s.top.map((n) => ({
        id: idOf(s.k, n.ty, n.lb),
        kind: kindOf(n.ty),
        name: nameOf(n.ty, n.lb),
        visitors: n.visitors,
        left: n.left,
      })),
    })),
    edges,
  };
}

/** This week's Monday, 00:00 UTC (1970-01-01 was a Thursday). */
export const mondayOf = (ms: number) => Math.floor((ms - 4 * DAY_MS) / WEEK_MS) * WEEK_MS + 4 * DAY_MS;

export async function getRetention(
  deps: InsightDeps,
  accountId: string,
  linkId: string,
  q: { weeks?: number; compare?: Compare },
  nowMs = Date.now(),
) {
  const link = await ownedLink(deps.db, accountId, linkId);
  const weeks = q.weeks ?? 8;
  const window = { fromMs: mondayOf(nowMs) - (weeks - 1) * WEEK_MS, toMs: nowMs };
  const index = retentionIndexReader(deps.ch, { accountId, linkId: link }, nowMs);
  return withComparison(
    q.compare,
    window,
    weeks * WEEK_MS,
    async (w): Promise<RetentionReport> => {
      const rows = await queryRetention(deps.ch, accountId, link, w, weeks, index);
      return buildRetention(rows, weeks, w);
    },
    { aheadMs: AHEAD_MS },
  );
}

function buildRetention(rows: RetentionRow[], weeks: number, w: Window): RetentionReport {
  const first = mondayOf(w.fromMs);
  const last = first + (weeks - 1) * WEEK_MS;
  const byWeek = new Map(rows.map((r) => [r.cohort, r]));
  const cohorts = [];
  for (let week = first; week <= last; week += WEEK_MS) {
    const day = new Date(week).toISOString().slice(0, 10);
    const row = byWeek.get(day);
    const visitors = row?.visitors ?? 0;
    const returns = [];
    for (let offset = 1; week + offset * WEEK_MS <= last; offset++) {
      const n = row?.returns.get(offset) ?? 0;
      returns.push({ week_offset: offset, visitors: n, rate: percent(n, visitors) });
    }
    cohorts.push({ week: day, visitors, returns });
  }
  return { weeks, visitors: sum(rows.map((r) => r.visitors)), returning: sum(rows.map((r) => r.returning)), cohorts };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
