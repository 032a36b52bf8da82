// Exact click visitors at the cost of sums (docs/accuracy.md, "Unique visitors of clicks").
//
// Visitor hashes are salted per UTC day, and a hash crosses midnight only through the 30-minute carry, so
// two days share only the hashes carried from one to the next. The visitors of a report's row ("cell")
// over days a..b are therefore Σ_d visitors(d) − Σ_{d>a} overlap(d), overlap(d) being the cell's hashes
// seen on d and on d−1 (no hash is on three days: the carry is from a day's salt to the next day only).
// Closed days' numbers are stored (rows of each report's aggregate, migration 0270); a stored number is used only while the cell's
// clicks on its day (and, for the overlap, on the day before) are still what they were when it was
// computed, else that day is counted from the raw clicks, as today always is. So late clicks, unmerged
// parts and days the job has not reached yet change the cost, never the count.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { ClickScope } from "./model";
import { addDays, isoDay } from "./range";
import {
  type CellCount,
  type CellRead,
  type CellSelector,
  type CellSums,
  countRawOverlaps,
  countRawVisitors,
  type ExtraQuery,
  type LiveQuery,
  readCells,
  USAGE_SIDE,
  type VisitorReport,
} from "./queries/visitor-days";

export interface CellVisitors {
  /** Per cell over the range: its clicks, the report's own numbers (x a maximum, y a sum) and its distinct visitors. */
  byKey: Map<string, Counted>;
  /** Per day (the visitors of all cells of the day together only when the report has one cell, as total). */
  byDay: Map<string, Counted>;
  extras: CellRead["extras"];
}
export interface Counted {
  clicks: number;
  x: number;
  y: number;
  visitors: number;
}

const BOT = { real: 0, bot: 1, all: 2 } as const;

/** The cells of a scope, or undefined when the table has none for it (a source filter, several links). */
export function cellSelector(scope: ClickScope, report: VisitorReport): CellSelector | undefined {
  if (scope.source !== undefined) return undefined;
  const base = { accountId: scope.accountId, bot: BOT[scope.botFilter], domain: scope.domain ?? "*", usage: scope.usage };
  if (scope.linkIds === undefined) return { ...base, report };
  // One link: its own cells serve the totals and the days (report "link"); other breakdowns of a link are not stored.
  if (scope.linkIds.length === 1 && report === "total") return { ...base, report: "link", key: scope.linkIds[0] };
  return undefined;
}

/**
 * Today's overlaps with yesterday: the hashes of today's first 30 minutes that the cell had yesterday.
 * They change only when clicks are added to today's first 30 minutes or to yesterday, so each process
 * keeps them per scope with those two click counts and reads the raw clicks again only when one has changed.
 */
const overlapsOfToday = new Map<string, { early: number; yesterday: number; counts: CellCount[] }>();
const MAX_KEPT = 2000;

async function todaysOverlaps(ch: Clickhouse, sel: CellSelector, today: string, early: number, yesterday: number): Promise<CellCount[]> {
  if (early === 0 || yesterday === 0) return [];
  const id = [sel.accountId, sel.report, sel.bot, sel.domain, sel.key ?? "", today].join("|");
  const kept = overlapsOfToday.get(id);
  if (kept && kept.early === early && kept.yesterday === yesterday) return kept.counts;
  const counts = await countRawOverlaps(ch, sel, [today], today);
  if (overlapsOfToday.size >= MAX_KEPT) overlapsOfToday.clear();
  overlapsOfToday.set(id, { early, yesterday, counts });
  return counts;
}

/**
 * The report's live read and the visitors of its cells over the range, in one statement (readCells): the
 * closed (day, cell)s whose stored numbers hold are summed there, the others counted from the raw clicks.
 * Every stored number used comes from one statement, so a version the job stores meanwhile is never mixed
 * with the one it replaces.
 */
export async function countCellVisitors(
  ch: Clickhouse,
  sel: CellSelector,
  range: { start: string; end: string },
  live: LiveQuery,
  extras: ExtraQuery[] = [],
): Promise<CellVisitors> {
  const today = isoDay(Date.now());
  const read = await readCells(ch, sel, range, today, live, extras);
  if (sel.usage) sel.usage.daily = new Map(read.extras.filter((e) => e.side === USAGE_SIDE).map((e) => [e.d, e.a]));
  const staleN = new Set(read.stale.filter((c) => c.n).map((c) => `${c.day}|${c.key}`));
  const staleO = new Set(read.stale.filter((c) => c.o).map((c) => `${c.day}|${c.key}`));
  const daysOf = (cells: Set<string>) => [...new Set([...cells].map((c) => c.split("|")[0]))];
  const open = read.today.size > 0;
  const [lateN, lateO, openO] = await Promise.all([
    countRawVisitors(ch, sel, daysOf(staleN)),
    countRawOverlaps(ch, sel, daysOf(staleO), today),
    open && today > range.start
      ? todaysOverlaps(ch, sel, today, read.todayEarlyClicks, read.byDay.get(addDays(today, -1))?.clicks ?? 0)
      : [],
  ]);

  const visitors = new Map<string, number>([...read.byKey].map(([k, c]) => [k, c.visitors - c.overlap]));
  const perDay = new Map<string, number>([...read.byDay].map(([d, c]) => [d, c.visitors]));
  const add = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);
  for (const c of lateN) {
    if (!staleN.has(`${c.day}|${c.key}`)) continue;
    add(visitors, c.key, c.n);
    add(perDay, c.day, c.n);
  }
  for (const c of lateO) if (staleO.has(`${c.day}|${c.key}`)) add(visitors, c.key, -c.n);
  for (const [k, n] of read.today) {
    add(visitors, k, n);
    add(perDay, today, n);
  }
  for (const c of openO) add(visitors, c.key, -c.n);

  const counted = (c: CellSums, v: number): Counted => ({ clicks: c.clicks, x: c.x, y: c.y, visitors: v });
  // Cells and days without clicks in the range (stored rows of a cell's day before only) are left out;
  // `y` counts too (link stats' bot clicks: a link only bots followed still has its clicks).
  const any = (c: CellSums) => c.clicks > 0 || c.y > 0;
  return {
    byKey: new Map([...read.byKey].filter(([, c]) => any(c)).map(([k, c]) => [k, counted(c, visitors.get(k) ?? 0)])),
    byDay: new Map([...read.byDay].filter(([, c]) => any(c)).map(([d, c]) => [d, counted(c, perDay.get(d) ?? 0)])),
    extras: read.extras.filter((e) => e.side !== USAGE_SIDE),
  };
}
