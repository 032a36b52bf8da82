// Exact click visitors at the cost of sums (docs/accuracy.md, "Unique visitors of clicks").
//
// Visitor hashes are salted per UTC day, and a hash crosses midnight only through the 30-minute carry, so
// two days share only the hashes carried from one to the next. The visitors of a report's row ("cell")
// over days a..b are therefore Σ_d visitors(d) − Σ_{d>a} overlap(d), overlap(d) being the cell's hashes
// seen on d and on d−1 (no hash is on three days: the carry is from a day's salt to the next day only).
// Closed days' numbers are stored (click_visitor_days); a stored number is used only while the cell's
// clicks on its day (and, for the overlap, on the day before) are still what they were when it was
// computed, else that day is counted from the raw clicks, as today always is. So late clicks, unmerged
// parts and days the job has not reached yet change the cost, never the count.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { ClickScope } from "./model";
import { addDays, isoDay } from "./range";
import {
  type CellCount,
  type CellSelector,
  countRawOverlaps,
  countRawVisitors,
  type FirstRound,
  type LiveQuery,
  readFirstRound,
  type StoredCell,
  type VisitorReport,
} from "./queries/visitor-days";

export type LiveCell = FirstRound["live"][number];

export interface CellVisitors {
  /** The report's own read of its aggregate, one row per (day, cell). */
  live: LiveCell[];
  /** Distinct visitors per key over the whole range. */
  byKey: Map<string, number>;
  /** Distinct visitors per day (of all keys of the day together only when the report has one key, as total). */
  byDay: Map<string, number>;
}

const BOT = { real: 0, bot: 1, all: 2 } as const;

/** The cells of a scope, or undefined when the table has none for it (a source filter, several links). */
export function cellSelector(scope: ClickScope, report: VisitorReport): CellSelector | undefined {
  if (scope.source !== undefined) return undefined;
  const base = { accountId: scope.accountId, bot: BOT[scope.botFilter], domain: scope.domain ?? "*" };
  if (scope.linkIds === undefined) return { ...base, report };
  // One link: its own cells serve the totals and the days (report "link"); other breakdowns of a link are not stored.
  if (scope.linkIds.length === 1 && report === "total") return { ...base, report: "link", key: scope.linkIds[0] };
  return undefined;
}

const cellId = (day: string, key: string) => `${day}|${key}`;

/**
 * Today's overlaps with yesterday: the hashes of today's first 30 minutes that the cell had yesterday.
 * They change only when clicks are added to today's first hour or to yesterday, so each process keeps
 * them per scope with those two click counts and reads the raw clicks again only when one has changed.
 */
const overlapsOfToday = new Map<string, { firstHour: number; yesterday: number; counts: CellCount[] }>();
const MAX_KEPT = 2000;

async function todaysOverlaps(ch: Clickhouse, sel: CellSelector, today: string, first: FirstRound): Promise<CellCount[]> {
  const yesterday = addDays(today, -1);
  const yesterdayClicks = first.live.reduce((n, c) => n + (c.day === yesterday ? c.clicks : 0), 0);
  const id = [sel.accountId, sel.report, sel.bot, sel.domain, sel.key ?? "", today].join("|");
  const kept = overlapsOfToday.get(id);
  if (kept && kept.firstHour === first.firstHourClicks && kept.yesterday === yesterdayClicks) return kept.counts;
  const counts = await countRawOverlaps(ch, sel, [today], today);
  if (overlapsOfToday.size >= MAX_KEPT) overlapsOfToday.clear();
  overlapsOfToday.set(id, { firstHour: first.firstHourClicks, yesterday: yesterdayClicks, counts });
  return counts;
}

/**
 * The report's read of its aggregate (`live`) and the visitors of its cells over [start, end], in one
 * statement while every closed day's stored numbers hold; the days whose numbers do not hold are then
 * counted from the raw clicks.
 */
export async function countCellVisitors(
  ch: Clickhouse,
  sel: CellSelector,
  range: { start: string; end: string },
  liveQuery: LiveQuery,
): Promise<CellVisitors> {
  const today = isoDay(Date.now());
  // Today is never stored: its visitors are counted from the raw clicks alongside.
  const open = range.end >= today && range.start <= today ? today : undefined;
  const [first, openN] = await Promise.all([
    readFirstRound(ch, sel, range.start, range.end, liveQuery, open),
    open ? countRawVisitors(ch, sel, [open]) : [],
  ]);
  const cells = first.live;
  const openO = open && open > range.start ? await todaysOverlaps(ch, sel, open, first) : [];
  const liveClicks = new Map(cells.map((c) => [cellId(c.day, c.key), c.clicks]));
  const storedCells = new Map<string, StoredCell>(first.stored.map((s) => [cellId(s.day, s.key), s]));
  const staleN = new Set<string>();
  const staleO = new Set<string>();
  for (const c of cells) {
    if (c.clicks === 0 || c.day === open) continue;
    const st = storedCells.get(cellId(c.day, c.key));
    const nHolds = st !== undefined && st.clicks === c.clicks;
    if (!nHolds) staleN.add(c.day);
    if (c.day > range.start && !(nHolds && st.prev_clicks === (liveClicks.get(cellId(addDays(c.day, -1), c.key)) ?? 0))) staleO.add(c.day);
  }
  const [lateN, lateO] = await Promise.all([countRawVisitors(ch, sel, [...staleN]), countRawOverlaps(ch, sel, [...staleO], today)]);
  const counted = (rows: CellCount[]) => new Map(rows.map((r) => [cellId(r.day, r.key), r.n]));
  const rawN = counted([...openN, ...lateN]);
  const rawO = counted([...openO, ...lateO]);

  const byKey = new Map<string, number>();
  const byDay = new Map<string, number>();
  for (const c of cells) {
    if (c.clicks === 0) continue;
    const id = cellId(c.day, c.key);
    const fromRawN = c.day === open || staleN.has(c.day);
    const fromRawO = c.day === open || staleO.has(c.day);
    const st = storedCells.get(id);
    const n = fromRawN ? (rawN.get(id) ?? 0) : st!.visitors;
    const o = c.day <= range.start ? 0 : fromRawO ? (rawO.get(id) ?? 0) : st!.overlap;
    byKey.set(c.key, (byKey.get(c.key) ?? 0) + n - o);
    byDay.set(c.day, (byDay.get(c.day) ?? 0) + n);
  }
  return { live: cells, byKey, byDay };
}
