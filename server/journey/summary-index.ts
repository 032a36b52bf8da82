// The summaries' closed part, kept in memory: for a link (the journey summary) or a whole account (the
// conversions summary), every visitor's last bundle end and last conversion, and for a link every
// session's first event and last bundle end, over the bundles that ended before the index's hour
// (`until`). The journey job loads it (summary-index-query.ts) for the scopes asked lately; a summary then
// reads only the bundles that ended at or after `until` (the open part: the current hour, events dated
// ahead, batches that reach back) and combines them with the index, exactly:
//
// - a visitor counts when a bundle of theirs ended at or after the period start h (the rule of
//   visitors-query.ts): their indexed last end is ≥ h, or an open bundle of theirs ended ≥ h; a
//   converter likewise with conversion times;
// - a session counts when its last event is ≥ h, from max(first event, h) to its last event (what
//   journey_sessions_v2 FINAL gives): its first event is the minimum over the indexed and open bundles,
//   its last the maximum, so a session that began before the period, before midnight or before `until`
//   counts once, from the right start.
//
// The index is used only while its mark holds: the scope still holds exactly as many bundles that ended
// before `until` and as many open bundles that began before it as when it was loaded, and the mark of the
// mutations of the tables it is built from (storage/clickhouse/mutations.ts: the bundles and the rollups
// kept beside it) is the same (the mark is read before the rows; each call reads it again in the
// statement it sends anyway). Bundles are added, never changed, except by a mutation: every event that
// changes a closed hour — a late event, a batch whose last event is in the open part — adds one of them,
// and an erasure (ALTER … DELETE, a lightweight DELETE) is a mutation, whose adding and finishing both
// move the mark, also when late events add as many bundles at once. The rollups' closed hours of a
// period (events and top values, memoised per period start with the index) are read after the mark, so
// the same check covers them. Otherwise the summary answers from the exact queries and notes the scope
// for the job, which merges in the days whose count grew or, when the mutations' mark moved (rare),
// loads it whole again. Sessions and visitors are keyed by the 64-bit hashes the bundles hold
// (cityHash64 of the id), as every exact visitor count is. Kept per ClickHouse client, in memory, within
// MAX_INDEXED_ROWS (the least recently used scopes go first); another instance keeps its own.
import type { Clickhouse } from "../storage/clickhouse/client";
import { DAY_MS, HOUR_MS } from "../reports/period";
import { WHOLE_ACCOUNT } from "./closed-days-query";
import { noteSummary } from "./report-demand";
import {
  type Beside,
  countBundlesByDay,
  type DayCounts,
  type IndexScope,
  type KeyedRows,
  loadSessionRows,
  loadVisitorRows,
  type OpenBundles,
  readOpenBundles,
  sameMark,
} from "./summary-index-query";
import { findKey } from "../reports/sorted-keys";
import { perClient } from "../reports/per-client";

export type { IndexScope };

/** Visitors are indexed from this far back: no report period is longer than 90 days. */
const VISITOR_DAYS = 92;
/** Visitors and sessions held in all indexes of a client (24 bytes each: ~190 MB at most). */
export const MAX_INDEXED_ROWS = 8_000_000;

/** Visitors: values [last bundle end, last conversion]; sessions: [first event, last bundle end] (ms). */
type Keyed = KeyedRows;
interface ClosedTotals {
  visitors: number;
  converters: number;
  sessions: number;
  /** Σ (last event − max(first event, h)) over the counted sessions, ms. */
  sessionMs: number;
}
interface SummaryIndex {
  scope: IndexScope;
  untilMs: number;
  sinceMs: number;
  counts: DayCounts;
  visitors: Keyed;
  sessions: Keyed | null;
  rows: number;
  totals: Map<number, ClosedTotals>;
  /** What callers keep per period start beside the index (the rollups' closed hours). */
  memo: Map<string, unknown>;
  /** The NEWEST_INDEXED sessions with the latest first events, found on first use. */
  newest?: NewestIndexed;
}

/** Sessions of the index by first event, newest first, and the first event of those left out (a bound). */
interface NewestIndexed {
  at: number[];
  /** No session left out began after this (ms); -Infinity when none is left out. */
  bound: number;
}
/** The sessions list's pages read from the index reach this deep (sessions-query.ts NEWEST_SESSIONS_MAX). */
export const NEWEST_INDEXED = 512;

/** The index's NEWEST_INDEXED sessions with the latest first events (one pass, kept with the index). */
function newestIndexed(idx: SummaryIndex, sessions: Keyed): NewestIndexed {
  if (idx.newest) return idx.newest;
  const [started] = sessions.values;
  let keep: number[] = [];
  let floor = Number.NEGATIVE_INFINITY;
  const byStart = (a: number, b: number) => started[b] - started[a];
  for (let i = 0; i < started.length; i++) {
    if (started[i] < floor) continue;
    keep.push(i);
    if (keep.length >= 4 * NEWEST_INDEXED) {
      keep.sort(byStart);
      keep = keep.slice(0, NEWEST_INDEXED);
      floor = started[keep[keep.length - 1]];
    }
  }
  keep.sort(byStart);
  // Sessions tied with the last one kept may have been left out: the bound is then that start itself.
  const at = keep.slice(0, NEWEST_INDEXED);
  const bound = at.length < started.length ? started[at[at.length - 1]] : Number.NEGATIVE_INFINITY;
  idx.newest = { at, bound };
  return idx.newest;
}

const storeOf = perClient(() => new Map<string, SummaryIndex>());
const keyOf = (s: IndexScope) => `${s.accountId}/${s.scope}`;
/** Scopes whose index did not fit MAX_INDEXED_ROWS, until when they are not loaded again. */
const tooLarge = new Map<string, number>();
const TOO_LARGE_RETRY_MS = 86_400_000;

/**
 * Two key-sorted row sets as one: a key in both takes each value's minimum or maximum (`combine`), so
 * merging rows read again (a day re-read whole) changes nothing: the values are minima and maxima over
 * bundles, and bundles are only added.
 */
export function mergeKeyed(a: Keyed, b: Keyed, combine: ((x: number, y: number) => number)[]): Keyed {
  const n = a.hi.length + b.hi.length;
  const out: Keyed = { hi: new Uint32Array(n), lo: new Uint32Array(n), values: combine.map(() => new Float64Array(n)) };
  let i = 0;
  let j = 0;
  let k = 0;
  const take = (from: Keyed, at: number) => {
    out.hi[k] = from.hi[at];
    out.lo[k] = from.lo[at];
    for (let c = 0; c < combine.length; c++) out.values[c][k] = from.values[c][at];
    k++;
  };
  while (i < a.hi.length && j < b.hi.length) {
    const ah = a.hi[i];
    const bh = b.hi[j];
    const al = a.lo[i];
    const bl = b.lo[j];
    if (ah === bh && al === bl) {
      take(a, i++);
      for (let c = 0; c < combine.length; c++) out.values[c][k - 1] = combine[c](out.values[c][k - 1], b.values[c][j]);
      j++;
    } else if (ah < bh || (ah === bh && al < bl)) take(a, i++);
    else take(b, j++);
  }
  while (i < a.hi.length) take(a, i++);
  while (j < b.hi.length) take(b, j++);
  return { hi: out.hi.subarray(0, k), lo: out.lo.subarray(0, k), values: out.values.map((v) => v.subarray(0, k)) };
}

/** The visitors whose last bundle ended at or after `sinceMs`. */
function endedSince(v: Keyed, sinceMs: number): Keyed {
  const keep: number[] = [];
  for (let i = 0; i < v.hi.length; i++) if (v.values[0][i] >= sinceMs) keep.push(i);
  if (keep.length === v.hi.length) return v;
  const pick = <A extends Uint32Array | Float64Array>(a: A, make: (n: number) => A) => {
    const out = make(keep.length);
    keep.forEach((at, i) => {
      out[i] = a[at];
    });
    return out;
  };
  return {
    hi: pick(v.hi, (n) => new Uint32Array(n)),
    lo: pick(v.lo, (n) => new Uint32Array(n)),
    values: v.values.map((c) => pick(c, (n) => new Float64Array(n))),
  };
}

const VISITOR_COMBINE = [Math.max, Math.max];
const SESSION_COMBINE = [Math.min, Math.max];

/** Whether the index is current: its hour is the open one and its mark (bundle counts, mutations) still holds. */
async function isCurrent(ch: Clickhouse, idx: SummaryIndex, nowMs: number) {
  if (idx.untilMs !== Math.floor(nowMs / HOUR_MS) * HOUR_MS) return false;
  return sameMark(await countBundlesByDay(ch, idx.scope, idx.untilMs), idx.counts);
}

/**
 * The job's work: brings the index of `s` up to the open hour. A loaded index takes in the bundles of
 * the days whose count changed (the hours closed since, late events) by merging them; a missing one is
 * loaded whole. The counts are read first, so a bundle added during the load shows as a mismatch (and is
 * taken in by the next round). Returns whether it changed the index.
 */
export async function refreshSummaryIndex(ch: Clickhouse, s: IndexScope, nowMs = Date.now(), queries = ch): Promise<boolean> {
  const store = storeOf(ch);
  // A scope found too large is not loaded again for a day (each load reads its whole history).
  if ((tooLarge.get(keyOf(s)) ?? 0) > nowMs) return false;
  const old = store.get(keyOf(s));
  if (old && (await isCurrent(queries, old, nowMs))) return false;
  const untilMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  const counts = await countBundlesByDay(queries, s, untilMs);
  const links = s.scope !== WHOLE_ACCOUNT;
  let visitors: Keyed;
  let sessions: Keyed | null;
  let sinceMs: number;
  // Merging only adds: an index from a later hour, one whose days lost bundles (the TTL), or one of the
  // tables' mutations changed since (an erasure: a day's count may stand still) is loaded again.
  const mergeable =
    old &&
    old.untilMs <= untilMs &&
    old.counts.mutations === counts.mutations &&
    [...old.counts.days].every(([d, n]) => (counts.days.get(d) ?? 0) >= n)
      ? old
      : null;
  if (mergeable) {
    const days = [...counts.days].filter(([d, n]) => mergeable.counts.days.get(d) !== n).map(([d]) => d);
    const old = mergeable;
    const range = { sinceMs: old.sinceMs, untilMs, days };
    // Visitors whose last bundle ended before the oldest period start are dropped: they count in no period.
    sinceMs = Math.max(old.sinceMs, Math.floor(nowMs / DAY_MS) * DAY_MS - VISITOR_DAYS * DAY_MS);
    visitors = endedSince(mergeKeyed(old.visitors, await loadVisitorRows(queries, s, range), VISITOR_COMBINE), sinceMs);
    const more = links ? await loadSessionRows(queries, s, { ...range, sinceMs: 0 }) : null;
    sessions = old.sessions && more ? mergeKeyed(old.sessions, more, SESSION_COMBINE) : null;
  } else {
    sinceMs = Math.floor(nowMs / DAY_MS) * DAY_MS - VISITOR_DAYS * DAY_MS;
    visitors = await loadVisitorRows(queries, s, { sinceMs, untilMs });
    sessions = links ? await loadSessionRows(queries, s, { sinceMs: 0, untilMs }) : null;
  }
  const idx: SummaryIndex = {
    scope: s,
    untilMs,
    sinceMs,
    counts,
    visitors,
    sessions,
    rows: visitors.hi.length + (sessions?.hi.length ?? 0),
    totals: new Map(),
    memo: new Map(),
  };
  store.delete(keyOf(s));
  if (idx.rows > MAX_INDEXED_ROWS) {
    tooLarge.set(keyOf(s), nowMs + TOO_LARGE_RETRY_MS);
    return true;
  }
  store.set(keyOf(s), idx);
  let rows = 0;
  for (const x of store.values()) rows += x.rows;
  for (const [k, x] of store) {
    if (rows <= MAX_INDEXED_ROWS) break;
    store.delete(k);
    rows -= x.rows;
  }
  return true;
}

/** Drops the indexes not asked for (by `keep`), so that their memory goes. */
export function dropSummaryIndexes(ch: Clickhouse, keep: IndexScope[]) {
  const wanted = new Set(keep.map(keyOf));
  const store = storeOf(ch);
  for (const k of [...store.keys()]) if (!wanted.has(k)) store.delete(k);
}

function closedTotals(idx: SummaryIndex, h: number): ClosedTotals {
  const cached = idx.totals.get(h);
  if (cached) return cached;
  const t: ClosedTotals = { visitors: 0, converters: 0, sessions: 0, sessionMs: 0 };
  const [ended, converted] = idx.visitors.values;
  for (let i = 0; i < ended.length; i++) {
    if (ended[i] >= h) t.visitors++;
    if (converted[i] >= h) t.converters++;
  }
  if (idx.sessions) {
    const [started, last] = idx.sessions.values;
    for (let i = 0; i < last.length; i++) {
      if (last[i] < h) continue;
      t.sessions++;
      t.sessionMs += last[i] - Math.max(started[i], h);
    }
  }
  // Period starts move by an hour: a few are kept.
  if (idx.totals.size >= 8) idx.totals.delete(idx.totals.keys().next().value as number);
  idx.totals.set(h, t);
  return t;
}

/** The open bundles' sessions: key → [a bundle's position, first event, last end] over their open bundles. */
function openSpans(open: OpenBundles) {
  const spans = new Map<string, [number, number, number]>();
  for (let i = 0; i < open.ended.length; i++) {
    if (open.sidHi[i] === 0 && open.sidLo[i] === 0) continue;
    const k = `${open.sidHi[i]}:${open.sidLo[i]}`;
    const e = spans.get(k);
    if (!e) spans.set(k, [i, open.started[i], open.ended[i]]);
    else {
      e[1] = Math.min(e[1], open.started[i]);
      e[2] = Math.max(e[2], open.ended[i]);
    }
  }
  return spans;
}

/**
 * The period's sessions and their summed span: the closed totals with each open session's indexed span
 * (if counted) replaced by its whole span; `each` sees every open session's whole span.
 */
function withOpenSessions(
  indexed: Keyed,
  h: number,
  t: ClosedTotals,
  open: OpenBundles,
  spans: Map<string, [number, number, number]>,
  each?: (at: number, i: number, started: number, ended: number) => void,
) {
  let { sessions, sessionMs } = t;
  const [sStarted, sEnded] = indexed.values;
  for (const [i, started0, ended0] of spans.values()) {
    let started = started0;
    let ended = ended0;
    const at = findKey(indexed, open.sidHi[i], open.sidLo[i]);
    if (at >= 0) {
      if (sEnded[at] >= h) {
        sessions--;
        sessionMs -= sEnded[at] - Math.max(sStarted[at], h);
      }
      started = Math.min(started, sStarted[at]);
      ended = Math.max(ended, sEnded[at]);
    }
    if (ended >= h) {
      sessions++;
      sessionMs += ended - Math.max(started, h);
    }
    each?.(at, i, started, ended);
  }
  return { sessions, sessionMs };
}

export interface IndexedFigures {
  visitors: number;
  converters: number;
  sessions: number;
  /** The sessions' average duration, seconds (null without sessions), as avgOrNull gives it. */
  avgSessionSeconds: number | null;
  /** The index's hour: the caller's `beside` columns read the rollups' open part from it, and `memo` keeps the closed part. */
  untilMs: number;
  memo: Map<string, unknown>;
  /** The values of the caller's `beside` columns. */
  beside: Record<string, unknown>;
  /** The events dated from the index's hour on (the rollups' open hours); 0 unless asked (FigureOptions.openEvents). */
  openEvents: number;
}

export interface FigureOptions {
  converters: boolean;
  /** Whether to count the events dated from the index's hour on (IndexedFigures.openEvents). */
  openEvents?: boolean;
  /** More columns for the same statement, given the index's hour (null: nothing beside). */
  beside?: (untilMs: number) => Beside;
}

/**
 * The period [h, now)'s exact visitors, converters and (for a link) sessions of `s` from its index and
 * the open bundles; null when the index is missing, stale or does not reach back to h: the caller
 * answers from the exact queries, and the scope is noted for the job. Never writes.
 */
export async function indexedFigures(
  ch: Clickhouse,
  s: IndexScope,
  h: number,
  options: FigureOptions,
  nowMs = Date.now(),
): Promise<IndexedFigures | null> {
  const idx = storeOf(ch).get(keyOf(s));
  noteSummary(ch, s, nowMs);
  if (!idx || h < idx.sinceMs || h > idx.untilMs) return null;
  const open = await readOpenBundles(ch, s, idx.untilMs, options.converters, options.beside?.(idx.untilMs), {
    visitors: true,
    events: options.openEvents ?? false,
  });
  if (!sameMark(open, idx.counts)) return null;
  const store = storeOf(ch);
  store.delete(keyOf(s));
  store.set(keyOf(s), idx);
  const t = closedTotals(idx, h);
  let { visitors, converters } = t;
  let { sessions, sessionMs } = t;

  // Open visitors and converters not already counted from the index.
  const lastEnd = new Map<string, [number, number, number]>();
  for (let i = 0; i < open.ended.length; i++) {
    const k = `${open.vhHi[i]}:${open.vhLo[i]}`;
    const e = lastEnd.get(k);
    const converted = options.converters ? open.converted[i] : 0;
    if (!e) lastEnd.set(k, [i, open.ended[i], converted]);
    else {
      e[1] = Math.max(e[1], open.ended[i]);
      e[2] = Math.max(e[2], converted);
    }
  }
  const [vEnded, vConverted] = idx.visitors.values;
  for (const [i, ended, converted] of lastEnd.values()) {
    const at = findKey(idx.visitors, open.vhHi[i], open.vhLo[i]);
    if (ended >= h && (at < 0 || vEnded[at] < h)) visitors++;
    if (converted >= h && (at < 0 || vConverted[at] < h)) converters++;
  }

  // Open sessions: each replaces its indexed span (if counted) by the span with its open bundles.
  if (idx.sessions) ({ sessions, sessionMs } = withOpenSessions(idx.sessions, h, t, open, openSpans(open)));
  return {
    visitors,
    converters: options.converters ? converters : 0,
    sessions,
    avgSessionSeconds: sessions ? sessionMs / sessions / 1000 : null,
    untilMs: idx.untilMs,
    memo: idx.memo,
    beside: open.beside,
    openEvents: open.events,
  };
}

/** The hour of the scope's index (its open part starts there), or null without one. */
export const summaryIndexHour = (ch: Clickhouse, s: IndexScope): number | null => storeOf(ch).get(keyOf(s))?.untilMs ?? null;

/** A session: its key (cityHash64 of its id, as two halves), first event and last bundle end, ms. */
export interface SessionSpan {
  hi: number;
  lo: number;
  started: number;
  ended: number;
}

export interface IndexedSessions {
  /** Sessions with a bundle ending at or after h (those the sessions list counts). */
  total: number;
  /**
   * The `want` sessions of the period with the latest first events, and every other as late as the last
   * of them (ties, which the caller orders by id), newest first; null when the index cannot tell them for
   * sure (a page deeper than it keeps): the caller reads them from the bundles.
   */
  newest: SessionSpan[] | null;
}

/**
 * A link's sessions list from its index and the open bundles: the period [h, now)'s count and its
 * newest sessions. Null when the index is missing, stale or does not reach back to h, as for indexedFigures.
 */
export async function indexedSessions(
  ch: Clickhouse,
  s: IndexScope,
  h: number,
  want: number,
  nowMs = Date.now(),
): Promise<IndexedSessions | null> {
  const idx = storeOf(ch).get(keyOf(s));
  noteSummary(ch, s, nowMs);
  if (!idx?.sessions || h < idx.sinceMs || h > idx.untilMs || want > NEWEST_INDEXED) return null;
  const indexed = idx.sessions;
  const [sStarted, sEnded] = indexed.values;
  const top = newestIndexed(idx, indexed);
  const spanAt = (at: number): SessionSpan => ({ hi: indexed.hi[at], lo: indexed.lo[at], started: sStarted[at], ended: sEnded[at] });
  const open = await readOpenBundles(ch, s, idx.untilMs, false, undefined, { visitors: false, events: false });
  if (!sameMark(open, idx.counts)) return null;

  // Every session with an open bundle (with its whole span), then the newest indexed ones without one.
  const candidates: SessionSpan[] = [];
  const withOpen = new Set<number>();
  const spans = openSpans(open);
  const { sessions } = withOpenSessions(indexed, h, closedTotals(idx, h), open, spans, (at, i, started, ended) => {
    if (at >= 0) withOpen.add(at);
    candidates.push({ hi: open.sidHi[i], lo: open.sidLo[i], started, ended });
  });
  for (const at of top.at) if (!withOpen.has(at)) candidates.push(spanAt(at));
  const inPeriod = candidates.filter((c) => c.ended >= h).sort((a, b) => b.started - a.started);
  // A session not among the candidates is an indexed one without open bundles that began at or before
  // top.bound: the page is sure when its last session began after that.
  const last = inPeriod[Math.min(want, inPeriod.length) - 1];
  const sure = inPeriod.length >= want ? last.started > top.bound : top.bound === Number.NEGATIVE_INFINITY;
  return { total: sessions, newest: sure ? inPeriod.filter((c) => c.started >= (last?.started ?? 0)) : null };
}
