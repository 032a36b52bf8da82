// The journey summary and the conversions summary's visitor counts from the in-memory index of closed
// bundles (server/journey/summary-index.ts): every figure must equal what the events sent give, computed
// here from them, for every period — with late events into indexed days, sessions across the period
// start, midnight and the current hour's start (sent in one batch after the index was loaded), events
// dated ahead, and before and after OPTIMIZE … FINAL. The index answers only while its counts hold:
// these tests check when it does (indexedFigures not null) and that the summary is exact either way.
import { beforeAll, expect, test } from "bun:test";
import { WHOLE_ACCOUNT } from "../../server/journey/closed-days-query";
import { getJourneySummary } from "../../server/journey/queries";
import { refreshJourneyReports } from "../../server/journey/report-cache-job";
import { indexedFigures, indexedSessions } from "../../server/journey/summary-index";
import { listJourneySessions } from "../../server/journey/sessions-query";
import { countSummaryVisitors } from "../../server/journey/visitors-query";
import { insertJourneyRows } from "../../server/ingest/journey/repository";
import { toJourneyRow } from "../../server/ingest/journey/rows";
import { chTime } from "../../server/storage/clickhouse/format";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = Date.now();
const openHour = Math.floor(now / HOUR) * HOUR;
const today = Math.floor(now / DAY) * DAY;
const account = crypto.randomUUID();
const shop = crypto.randomUUID();
const blog = crypto.randomUUID();

const db = useClickhouseBefore(100_000);
let ch: Clickhouse;
beforeAll(() => {
  ch = db.ch;
});

interface Sent {
  link: string;
  visitor: string;
  session: string;
  type: "page_view" | "custom" | "conversion";
  ms: number;
  url: string;
  name: string;
}
const sent: Sent[] = [];
/** Visitors whose rows were erased from the events, the bundles and the sessions (not from the rollups, which hold no visitor). */
const erased = new Set<string>();
/** The events the bundles and sessions still hold. */
const kept = () => sent.filter((e) => !erased.has(e.visitor));

/** One insert (one batch, as the spool flusher sends it). */
async function send(events: Sent[]) {
  const receivedMs = Date.now();
  const rows = events.map((e) =>
    toJourneyRow(crypto.randomUUID(), receivedMs, chTime(receivedMs), account, {
      link_id: e.link,
      visitor_id: e.visitor,
      session_id: e.session,
      event_type: e.type,
      event_name: e.name || undefined,
      page_url: e.url,
      timestamp: new Date(e.ms).toISOString(),
    }),
  );
  await insertJourneyRows(ch, Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n")), rows.length, crypto.randomUUID());
  sent.push(...events);
}

function random(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x / 2_147_483_648;
  };
}

const ev = (link: string, visitor: string, session: string, ms: number, i = 0): Sent => {
  const type = i % 7 === 6 ? "conversion" : i % 3 === 2 ? "custom" : "page_view";
  return {
    link,
    visitor,
    session,
    type,
    ms,
    url: `https://shop.example/p/${i % 13}`,
    name: type === "custom" ? `e${i % 4}` : type === "conversion" ? "purchase" : "",
  };
};

/** `n` sessions of 1–6 events minutes apart over the last `days` days, visitors coming back on other days. */
function sessions(seed: number, n: number, days: number, prefix: string): Sent[] {
  const r = random(seed);
  const out: Sent[] = [];
  for (let s = 0; s < n; s++) {
    const visitor = `${prefix}v${Math.floor(r() * r() * n * 0.4)}`;
    const link = r() < 0.75 ? shop : blog;
    const start = now - 2 * HOUR - r() * days * DAY;
    const len = 1 + Math.floor(r() * 6);
    for (let j = 0; j < len; j++) out.push(ev(link, visitor, `${prefix}s${s}`, Math.floor(start + j * (1 + r() * 9) * MIN), s + j));
  }
  return out;
}

/** What the events sent give for a link's summary over [h, now and beyond). */
function expectedSummary(link: string, h: number) {
  const mine = kept().filter((e) => e.link === link);
  const inPeriod = mine.filter((e) => e.ms >= h);
  // Events and top values are the rollups' counts: an erasure of a visitor's rows leaves them.
  const counted = sent.filter((e) => e.link === link && e.ms >= h);
  const spans = new Map<string, [number, number]>();
  for (const e of mine) {
    if (!e.session) continue;
    const s = spans.get(e.session);
    spans.set(e.session, s ? [Math.min(s[0], e.ms), Math.max(s[1], e.ms)] : [e.ms, e.ms]);
  }
  const spansOf = [...spans.values()].filter(([, last]) => last >= h);
  const total = spansOf.reduce((sum, [first, last]) => sum + last - Math.max(first, h), 0);
  const top = (values: string[]) => {
    const n = new Map<string, number>();
    for (const v of values) n.set(v, (n.get(v) ?? 0) + 1);
    return [...n]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, 10)
      .map(([value, count]) => ({ value, count }));
  };
  return {
    total_visitors: new Set(inPeriod.map((e) => e.visitor)).size,
    total_sessions: spansOf.length,
    total_events: counted.length,
    avg_session_duration_seconds: spansOf.length ? Math.round((total / spansOf.length / 1000) * 100) / 100 : 0,
    top_pages: top(counted.filter((e) => e.type === "page_view").map((e) => e.url)).map((x) => ({ url: x.value, count: x.count })),
    top_events: top(counted.filter((e) => e.name).map((e) => e.name)).map((x) => ({ name: x.value, count: x.count })),
  };
}
function expectedVisitors(links: string[], h: number) {
  const mine = kept().filter((e) => links.includes(e.link) && e.ms >= h);
  return {
    visitors: new Set(mine.map((e) => e.visitor)).size,
    converters: new Set(mine.filter((e) => e.type === "conversion").map((e) => e.visitor)).size,
  };
}

/** `run`'s result and how many ClickHouse queries it sent. */
function queriesOf<T>(run: () => Promise<T>) {
  let n = 0;
  const query = ch.query;
  ch.query = (...args) => {
    n++;
    return query.apply(ch, args) as never;
  };
  const result = run().finally(() => {
    ch.query = query;
  });
  return { result, count: () => n };
}

/** The sessions list's order and figures over [h, …): every session with an event from h on, by first event (newest first), then id. */
function expectedSessions(link: string, h: number) {
  const bySession = new Map<string, Sent[]>();
  for (const e of kept()) if (e.link === link && e.session) bySession.set(e.session, [...(bySession.get(e.session) ?? []), e]);
  return [...bySession]
    .map(([session_id, events]) => {
      const times = events.map((e) => e.ms);
      return { session_id, first: Math.min(...times), last: Math.max(...times), event_count: events.length };
    })
    .filter((x) => x.last >= h)
    .sort((a, b) => b.first - a.first || Buffer.compare(Buffer.from(a.session_id), Buffer.from(b.session_id)))
    .map((x) => ({
      session_id: x.session_id,
      started_at: new Date(x.first).toISOString(),
      ended_at: new Date(x.last).toISOString(),
      event_count: x.event_count,
    }));
}

/** Pages of the sessions list (the first three of 7, a deep one of 10) against the sessions sent. */
async function expectSessionPages(link: string, h: number, indexed: boolean) {
  const all = expectedSessions(link, h);
  const range = { accountId: account, linkId: link, fromMs: h };
  if (indexed) {
    const found = await indexedSessions(ch, { accountId: account, scope: link }, h, 21);
    expect(found?.total).toBe(all.length);
    // Periods with fewer sessions than asked may have others among those the index keeps no order of.
    if (all.length >= 21) expect(found?.newest).not.toBeNull();
  }
  for (const [n, limit] of [
    [1, 7],
    [2, 7],
    [3, 7],
    [40, 10],
  ]) {
    const sentQueries = queriesOf(() => listJourneySessions(ch, range, { page: n, limit }));
    const { items, total } = await sentQueries.result;
    // From the index, a page is two or three statements (the open bundles and the likely rows, then the rows missing).
    if (indexed && all.length >= n * limit + 14) expect(sentQueries.count()).toBeLessThanOrEqual(3);
    const got = items.map((x) => ({
      session_id: x.session_id,
      started_at: x.started_at,
      ended_at: x.ended_at,
      event_count: x.event_count,
    }));
    expect({ h, link, n, total, got }).toEqual({ h, link, n, total: all.length, got: all.slice((n - 1) * limit, n * limit) });
  }
}

const periodStarts = () => [1, 7, 30, 90].map((days) => Math.floor((now - days * DAY) / HOUR) * HOUR);
const scopes = [
  [shop, [shop]],
  [blog, [blog]],
  [WHOLE_ACCOUNT, [shop, blog]],
] as const;

/** Every figure of every period as sent; `indexed`: whether the index must have answered. */
async function expectExact(indexed: boolean) {
  for (const h of periodStarts()) {
    for (const link of [shop, blog]) {
      if (indexed) expect(await indexedFigures(ch, { accountId: account, scope: link }, h, { converters: true })).not.toBeNull();
      expect({ h, link, ...(await getJourneySummary(ch, { accountId: account, linkId: link, fromMs: h })) }).toEqual({
        h,
        link,
        ...expectedSummary(link, h),
      });
      await expectSessionPages(link, h, indexed);
    }
    for (const [scope, links] of scopes) {
      if (indexed) expect(await indexedFigures(ch, { accountId: account, scope }, h, { converters: true })).not.toBeNull();
      const s = { accountId: account, fromMs: h, linkIds: scope === WHOLE_ACCOUNT ? undefined : [scope] };
      expect({ h, scope, ...(await countSummaryVisitors(ch, s)) }).toEqual({ h, scope, ...expectedVisitors([...links], h) });
    }
  }
}

test("the index answers every period as sent, and before the job's round the summary is exact without it", async () => {
  const seeded = sessions(1, 700, 92, "a");
  for (let i = 0; i < seeded.length; i += 150) await send(seeded.slice(i, i + 150));
  const h7 = periodStarts()[1];
  await send([
    // Across the 7-day period's start, across midnight, and across the current hour's start (closed then).
    ...[-20, -5, 10, 25].map((m, i) => ev(shop, "a-across-start", "across-start", h7 + m * MIN, i)),
    ...[-15, -1, 3, 40].map((m, i) => ev(shop, "a-midnight", "midnight", today - DAY + m * MIN, i)),
    ...[-30, -2].map((m, i) => ev(shop, "a-hour", "hour", openHour + m * MIN, i)),
    // Dated ahead.
    ev(blog, "a-ahead", "ahead", now + 3 * HOUR, 1),
    // Sessions that begin at the same instant (the list orders them by id), in a closed hour and in the open one.
    ...["tie-b", "tie-a", "tie-c"].map((id, i) => ev(shop, `a-${id}`, id, openHour - 50 * MIN, i)),
    ...["tie-z", "tie-y"].map((id, i) => ev(shop, `a-${id}`, id, openHour + Math.floor((now - openHour) / 2), i)),
  ]);
  await expectExact(false);
  await refreshJourneyReports(ch, now);
  await expectExact(true);
  // From the index, a page is two statements at once: the open bundles, and the rows of the open sessions
  // that began last — here the two sessions begun in the open hour (tied, so ordered by id) — and a third
  // for the rows of indexed sessions on a deeper page.
  const range = { accountId: account, linkId: shop, fromMs: periodStarts()[1] };
  const expected = expectedSessions(shop, periodStarts()[1]).map((x) => x.session_id);
  expect(expected.slice(0, 2)).toEqual(["tie-y", "tie-z"]);
  for (const [limit, statements] of [
    [2, 2],
    [20, 3],
  ]) {
    const first = queriesOf(() => listJourneySessions(ch, range, { page: 1, limit }));
    expect((await first.result).items.map((x) => x.session_id)).toEqual(expected.slice(0, limit));
    expect({ limit, statements: first.count() }).toEqual({ limit, statements });
  }
}, 120_000);

test("events of the open hour, a batch across the hour's start and events dated ahead, sent after the index was loaded", async () => {
  const known = [...new Set(sent.filter((e) => e.link === shop).map((e) => e.session))].slice(0, 20);
  // Only open-hour and dated-ahead bundles: the index still answers.
  await send([
    ...known.slice(0, 10).map((s, i) => ev(shop, `a-open${i}`, s, openHour + Math.min(now - openHour - 1, i * 1000), i)),
    ...Array.from({ length: 8 }, (_, i) => ev(shop, `a-new${i}`, `new${i}`, openHour + Math.min(now - openHour - 1, i * 500), i)),
    ev(shop, "a-hour", "hour", now + 2 * HOUR, 2),
    ev(blog, "a-ahead", "ahead", now + 5 * HOUR, 3),
  ]);
  await expectExact(true);
  // One batch of a session that began before the hour, into the closed part and the open hour: its
  // bundle ends in the open hour but changes a closed hour's rollups. The index stands aside until the job's round.
  await send([ev(shop, "a-hour", "hour", openHour - 10 * MIN, 4), ev(shop, "a-hour", "hour", openHour, 5)]);
  expect(await indexedFigures(ch, { accountId: account, scope: shop }, periodStarts()[0], { converters: false })).toBeNull();
  await expectExact(false);
  await refreshJourneyReports(ch, now);
  await expectExact(true);
}, 120_000);

test("late events into indexed days: new visitors, returning ones, and a session whose first event moves earlier", async () => {
  const tenDaysAgo = Math.floor((now - 10 * DAY) / HOUR) * HOUR + 17 * MIN;
  const oldSessions = [...new Set(sent.filter((e) => e.ms > now - 5 * DAY && e.ms < now - 3 * HOUR).map((e) => e.session))].slice(0, 12);
  await send([
    ...oldSessions.map((s, i) => ev(shop, `a-late-${i}`, s, tenDaysAgo + i * 1000, i)),
    ...Array.from({ length: 15 }, (_, i) => ev(blog, `a-late-new${i}`, `late${i}`, tenDaysAgo + i * 1000, i)),
    // Before the 7-day period: moves "across-start"'s first event, which is counted from the period start anyway.
    ev(shop, "a-across-start", "across-start", periodStarts()[1] - 3 * HOUR, 1),
  ]);
  for (const scope of [shop, blog, WHOLE_ACCOUNT]) {
    expect(await indexedFigures(ch, { accountId: account, scope }, periodStarts()[2], { converters: true })).toBeNull();
  }
  await expectExact(false);
  await refreshJourneyReports(ch, now);
  await expectExact(true);
}, 120_000);

test("the figures do not depend on what ClickHouse has merged", async () => {
  for (const t of [
    "journey_event_bundles",
    "journey_sessions_v2",
    "journey_visitors_hourly",
    "journey_tops_hourly",
    "journey_tops_daily",
  ] as const) {
    await ch.command(`OPTIMIZE TABLE ${ch.table(t)} FINAL`);
  }
  await expectExact(true);
  // A second late batch after the merge, and the job's round again (a merge into the loaded index).
  await send(sessions(2, 40, 20, "b"));
  await expectExact(false);
  await refreshJourneyReports(ch, now);
  await expectExact(true);
}, 120_000);

/** A visitor of the shop alone, all of whose events are on one closed UTC day at least two days ago, in sessions of theirs alone. */
function erasable() {
  const visitorsOf = new Map<string, Set<string>>();
  for (const e of sent) visitorsOf.set(e.session, (visitorsOf.get(e.session) ?? new Set()).add(e.visitor));
  const byVisitor = new Map<string, Sent[]>();
  for (const e of kept()) byVisitor.set(e.visitor, [...(byVisitor.get(e.visitor) ?? []), e]);
  for (const [visitor, events] of byVisitor) {
    const day = Math.floor(events[0].ms / DAY) * DAY;
    if (day < today - 60 * DAY || day > today - 2 * DAY) continue;
    const alone = (e: Sent) =>
      e.link === shop && e.session && visitorsOf.get(e.session)?.size === 1 && Math.floor(e.ms / DAY) * DAY === day;
    if (events.every(alone)) return { visitor, day, sessions: [...new Set(events.map((e) => e.session))] };
  }
  throw new Error("no visitor to erase");
}

/**
 * Erases a visitor's rows (events, bundles, sessions: an operator's ALTER … DELETE) and sends as many
 * late events into `day` (one batch, a bundle each) as the erasure removed bundle rows: the scope's
 * bundle counts end where they were.
 */
async function eraseWithLateEvents(tag: string, day: (erasedDay: number) => number) {
  const e = erasable();
  const [row] = await ch.query<{ n: string }>(
    `SELECT count() AS n FROM ${ch.table("journey_event_bundles")} WHERE account_id = {a:UUID} AND vh = cityHash64({v:String})`,
    { a: account, v: e.visitor },
  );
  const n = Number(row?.n);
  expect(n).toBeGreaterThan(0);
  for (const [table, where] of [
    ["journey_events", "visitor_id = {v:String}"],
    ["journey_event_bundles", "vh = cityHash64({v:String})"],
    ["journey_sessions_v2", "session_id IN {s:Array(String)}"],
  ] as const) {
    await ch.command(`ALTER TABLE ${ch.table(table)} DELETE WHERE account_id = {a:UUID} AND ${where} SETTINGS mutations_sync = 2`, {
      a: account,
      v: e.visitor,
      s: e.sessions,
    });
  }
  erased.add(e.visitor);
  const at = day(e.day) + 3 * HOUR + 17 * MIN;
  await send(Array.from({ length: n }, (_, i) => ev(shop, `a-${tag}${i}`, `${tag}${i}`, at + i * 1000, i)));
}

test("an erasure of a visitor's rows with late events of as many bundle rows: the index stands aside, and the job loads it again", async () => {
  const closedBundles = async () => {
    const [row] = await ch.query<{ n: string }>(
      `SELECT count() AS n FROM ${ch.table("journey_event_bundles")} WHERE account_id = {a:UUID} AND ended < fromUnixTimestamp64Milli({until:Int64}, 'UTC')`,
      { a: account, until: openHour },
    );
    return Number(row?.n);
  };
  const h30 = periodStarts()[2];
  const indexedNone = async () => {
    for (const scope of [shop, WHOLE_ACCOUNT]) {
      expect(await indexedFigures(ch, { accountId: account, scope }, h30, { converters: true })).toBeNull();
    }
    expect(await indexedSessions(ch, { accountId: account, scope: shop }, h30, 21)).toBeNull();
  };
  await expectExact(true);
  // Between the job's load and a report call: the late events on another day than the erased rows'.
  const before = await closedBundles();
  await eraseWithLateEvents("late-er-a", (d) => (d === today - 20 * DAY ? today - 21 * DAY : today - 20 * DAY));
  expect(await closedBundles()).toBe(before);
  await indexedNone();
  await expectExact(false);
  await refreshJourneyReports(ch, now);
  await expectExact(true);
  // The same after a job round, the late events on the erased rows' day (no day's count moves): the job
  // loads the index again.
  await eraseWithLateEvents("late-er-b", (d) => d);
  expect(await closedBundles()).toBe(before);
  await indexedNone();
  await refreshJourneyReports(ch, now);
  await expectExact(true);
}, 120_000);
