// The sessions list over journey_sessions_v2 (migration 0211): whole sessions, as fully merged data
// gives them whatever ClickHouse has merged. A session's rows may still be in several parts (its
// events arrived in several batches), so every read groups all of a session's rows before it looks at
// them: a session with an event in the period is listed with all its events, also those before it.
import type { Clickhouse } from "../storage/clickhouse/client";
import { chTimeToIso } from "../storage/clickhouse/format";
import { ENDED_IN_RANGE, type LinkRange, type PageArgs } from "./link-range";
import { indexedSessions, summaryIndexHour, type SessionSpan } from "./summary-index";
import { SMALL_READS } from "./summary-index-query";

const LINK = "account_id = {account:UUID} AND link_id = {link:UUID}";
/** Bundles (migration 0207) of the period's sessions: every session with an event in the period. */
const SESSION_BUNDLES = `${ENDED_IN_RANGE} AND sid != 0`;
/** A merged session's figures, from its (time, URL[, visitor]) first and last events. */
const FIGURES = `session_id, f.1 AS s_started, f.2 AS entry, f.3 AS first_visitor, l.1 AS s_ended, l.2 AS exit,
  n_events, n_views, n_conversions, dev, ctry`;
const MERGED = `session_id, min(first_event) AS f, max(last_event) AS l, sum(events) AS n_events, sum(page_views) AS n_views,
  sum(conversions) AS n_conversions, max(device) AS dev, max(country) AS ctry`;
/** Pages deeper than this merge every session of the period (the general query). */
const NEWEST_SESSIONS_MAX = 500;
/**
 * The bounds tried, in latest bundles per session wanted. On the 10M-event bench (sessions of up to 33
 * minutes, the newest ones still running) 4 bundles per wanted session held 16 sessions started after
 * their bound for a page of 20, and every page 1 fell back to the general query.
 */
const BOUND_BUNDLES_PER_SESSION = [4, 32, 256];

type SessionRow = Record<string, string | number>;

/**
 * The page of the newest sessions without merging every session of the period. The k session
 * bundles with the latest ends give a bound b: a session that started after b has all its bundles
 * ending after b, so ranking the sessions of the bundles after b by their first start finds it with
 * its true start. A session with an older bundle left out ranks too high, never too low, so when the
 * merged sessions confirm the start of every session up to this page, the page is exact. When the
 * latest-ending bundles hold too few sessions that started after b (long sessions: those ending last
 * started long before), or a start is not confirmed, a bound k times further back is tried; null (a
 * short period, or none of the bounds) sends the caller to the general query, which merges every
 * session of the period (about a second of CPU on 200,000 sessions).
 */
async function findNewestSessions(ch: Clickhouse, r: LinkRange, page: PageArgs): Promise<SessionRow[] | null> {
  const want = page.page * page.limit;
  if (want > NEWEST_SESSIONS_MAX) return null;
  for (const times of BOUND_BUNDLES_PER_SESSION) {
    const found = await newestAfterBound(ch, r, want, want * times);
    if (found === "period") return null;
    if (found) return found.slice(want - page.limit);
  }
  return null;
}

/** The `want` newest sessions from the bound of the k latest bundles; null if not confirmed, "period" if the period has fewer than k. */
async function newestAfterBound(ch: Clickhouse, r: LinkRange, want: number, k: number): Promise<SessionRow[] | null | "period"> {
  const spans = ch.table("journey_event_bundles");
  const p = { account: r.accountId, link: r.linkId, from: r.fromMs, k, want };
  const [top] = await ch.query<{ bound: string; n: string }>(
    `
    SELECT toString(min(e)) AS bound, count() AS n FROM (
      SELECT toUnixTimestamp64Milli(ended) AS e FROM ${spans} WHERE ${SESSION_BUNDLES} ORDER BY ended DESC LIMIT {k:UInt32})`,
    p,
  );
  if (!top || Number(top.n) < p.k) return "period";
  const after = "fromUnixTimestamp64Milli({bound:Int64}, 'UTC')";
  const ranked = await ch.query<{ session_id: string; s_started: string }>(
    `
    SELECT session_id, min(started) AS s_started FROM ${spans}
    WHERE ${LINK} AND ended > ${after} AND sid != 0
    GROUP BY session_id HAVING s_started > ${after}
    ORDER BY s_started DESC, session_id LIMIT {want:UInt32}`,
    { ...p, bound: Number(top.bound) },
  );
  if (ranked.length < want) return null;
  // Every row of these sessions, whatever its time: the whole session.
  const rows = await ch.query<SessionRow>(
    `
    SELECT ${FIGURES} FROM (
      SELECT ${MERGED} FROM ${ch.table("journey_sessions_v2")} WHERE ${LINK} AND session_id IN {ids:Array(String)} GROUP BY session_id)`,
    { ...p, ids: ranked.map((x) => x.session_id) },
  );
  const byId = new Map(rows.map((x) => [String(x.session_id), x]));
  if (ranked.some((x) => String(byId.get(x.session_id)?.s_started) !== String(x.s_started))) return null;
  return ranked.map((x) => byId.get(x.session_id)!);
}

/**
 * The period's sessions, each merged from all its rows (also those before the period), optionally
 * only those whose first visitor is `visitorId`: the sessions with a bundle ending in the period (and,
 * for a visitor, a bundle of theirs at any time), grouped from journey_sessions_v2 by session.
 */
function periodSessions(ch: Clickhouse, visitorId?: string) {
  const bundles = ch.table("journey_event_bundles");
  const theirs =
    visitorId !== undefined
      ? ` AND session_id IN (SELECT session_id FROM ${bundles} WHERE ${LINK} AND vh = cityHash64({visitor:String}))`
      : "";
  return `
    SELECT ${FIGURES} FROM (
      SELECT ${MERGED} FROM ${ch.table("journey_sessions_v2")}
      WHERE ${LINK} AND session_id IN (SELECT session_id FROM ${bundles} WHERE ${SESSION_BUNDLES})${theirs}
      GROUP BY session_id)${visitorId !== undefined ? " WHERE first_visitor = {visitor:String}" : ""}`;
}

/** The figures FIGURES gives, in the order the indexed page reads them (after the key's two halves). */
const ROW_FIELDS = [
  "session_id",
  "s_started",
  "entry",
  "first_visitor",
  "s_ended",
  "exit",
  "n_events",
  "n_views",
  "n_conversions",
  "dev",
  "ctry",
];
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const AT = (param: string) => `fromUnixTimestamp64Milli({${param}:Int64}, 'UTC')`;
/** Sessions named by their keys' halves ({<name>_hi}, {<name>_lo}) with a bundle that ended at or after {<name>_from}. */
const named = (name: string) =>
  `ended >= ${AT(`${name}_from`)} AND has(arrayMap((a, b) -> bitOr(bitShiftLeft(toUInt64(a), 32), toUInt64(b)), {${name}_hi:Array(UInt32)}, {${name}_lo:Array(UInt32)}), sid)`;
const namedParams = (name: string, sessions: SessionSpan[]) => ({
  [`${name}_from`]: Math.min(...sessions.map((x) => x.ended)),
  [`${name}_hi`]: sessions.map((x) => x.hi),
  [`${name}_lo`]: sessions.map((x) => x.lo),
});
/**
 * The rows (FIGURES and the key's halves k_hi, k_lo) of the sessions whose ids `ids` selects.
 */
const keyedRowsSql = (ch: Clickhouse, ids: string) => `
  SELECT ${FIGURES}, toUInt32(bitShiftRight(cityHash64(session_id), 32)) AS k_hi, toUInt32(bitAnd(cityHash64(session_id), 4294967295)) AS k_lo FROM (
    SELECT ${MERGED} FROM ${ch.table("journey_sessions_v2")} WHERE ${LINK} AND session_id IN (${ids})
    GROUP BY session_id)
  ${SMALL_READS}`;
/** The ids of the sessions named by their keys ({<name>_…}, `named`). */
const namedIds = (ch: Clickhouse, name: string) =>
  `SELECT session_id FROM ${ch.table("journey_event_bundles")} WHERE ${LINK} AND sid != 0 AND ${named(name)}`;
const startedMs = (row: SessionRow) => Date.parse(chTimeToIso(String(row.s_started)));

/** The `want` sessions whose bundles that ended at or after {until} began last (ties included: they are ordered by id later). */
const openLast = (ch: Clickhouse) => `
  SELECT any(session_id) FROM ${ch.table("journey_event_bundles")} WHERE ${LINK} AND ended >= ${AT("until")} AND sid != 0
  GROUP BY sid ORDER BY min(started) DESC LIMIT {want:UInt32} WITH TIES`;

/**
 * The page from the link's summary index (summary-index.ts indexedSessions: one statement reads the
 * open bundles). Beside it, a second statement reads the rows of the sessions most likely on the page
 * (those of the open bundles that began last: a busy link's newest sessions); a session of the page
 * whose row that did not read (an indexed one, or one that began before the open hour) is read after,
 * by its key near its last bundle's end. Every session is checked against its row (its first event),
 * and the page ordered as the general query orders it (first event, newest first, then session id).
 * Null when the index cannot answer; `rows` null when it gave the total but not the page.
 */
async function indexedPage(ch: Clickhouse, r: LinkRange, page: PageArgs): Promise<{ rows: SessionRow[] | null; total: number } | null> {
  const want = page.page * page.limit;
  const scope = { accountId: r.accountId, scope: r.linkId };
  const until = summaryIndexHour(ch, scope);
  const p = { account: r.accountId, link: r.linkId, until, want };
  const likely = until === null ? Promise.resolve([]) : ch.query<SessionRow>(keyedRowsSql(ch, openLast(ch)), p);
  // A failed speculative read leaves the rows to the read by key below.
  const [found, read] = await Promise.all([
    indexedSessions(ch, scope, r.fromMs, want),
    likely.then(
      (rows) => new Map(rows.map((row) => [`${row.k_hi}:${row.k_lo}`, row])),
      () => new Map<string, SessionRow>(),
    ),
  ]);
  if (!found) return null;
  if (!found.newest) return { rows: null, total: found.total };
  const missing = found.newest.filter((x) => !read.has(`${x.hi}:${x.lo}`));
  if (missing.length) {
    const rows = await ch.query<SessionRow>(keyedRowsSql(ch, namedIds(ch, "page")), { ...p, ...namedParams("page", missing) });
    for (const row of rows) read.set(`${row.k_hi}:${row.k_lo}`, row);
  }
  const rows: SessionRow[] = [];
  for (const x of found.newest) {
    const row = read.get(`${x.hi}:${x.lo}`);
    if (!row || startedMs(row) !== x.started) return { rows: null, total: found.total };
    rows.push(row);
  }
  rows.sort((a, b) => startedMs(b) - startedMs(a) || byteOrder(String(a.session_id), String(b.session_id)));
  return { rows: rows.slice(want - page.limit, want), total: found.total };
}

export async function listJourneySessions(ch: Clickhouse, r: LinkRange, page: PageArgs, visitorId?: string) {
  const p = {
    account: r.accountId,
    link: r.linkId,
    from: r.fromMs,
    visitor: visitorId ?? "",
    limit: page.limit,
    offset: (page.page - 1) * page.limit,
  };
  const pageRows = async () =>
    (visitorId === undefined ? await findNewestSessions(ch, r, page) : null) ??
    (await ch.query<SessionRow>(
      `${periodSessions(ch, visitorId)} ORDER BY s_started DESC, session_id LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      p,
    ));
  const indexed = visitorId === undefined && r.toMs === undefined ? await indexedPage(ch, r, page) : null;
  // Sessions with a bundle ending in the period, counted on the bundles keyed by their end; sent
  // beside the page's reads (a ClickHouse server, and chDB, run them at once).
  const [rows, [count]] = await Promise.all([
    indexed?.rows ?? pageRows(),
    indexed
      ? [{ n: String(indexed.total) }]
      : visitorId === undefined
        ? ch.query<{ n: string }>(`SELECT uniqExact(sid) AS n FROM ${ch.table("journey_event_bundles")} WHERE ${SESSION_BUNDLES}`, p)
        : ch.query<{ n: string }>(`SELECT count() AS n FROM (${periodSessions(ch, visitorId)})`, p),
  ]);
  const items = rows.map((s) => {
    const started = chTimeToIso(String(s.s_started));
    const ended = chTimeToIso(String(s.s_ended));
    return {
      session_id: String(s.session_id),
      visitor_id: String(s.first_visitor),
      started_at: started,
      ended_at: ended,
      duration_seconds: (Date.parse(ended) - Date.parse(started)) / 1000,
      event_count: Number(s.n_events),
      page_views: Number(s.n_views),
      entry_page: String(s.entry),
      exit_page: String(s.exit),
      converted: Number(s.n_conversions) > 0,
      device_type: s.dev ? String(s.dev) : null,
      country_code: s.ctry ? String(s.ctry) : null,
    };
  });
  return { items, total: Number(count.n) };
}
