// The paths report from the journey job's stored per-visitor paths of closed hours (migration 0280,
// server/journey/path-state-query.ts) plus the bundles that ended since: it must give the raw query's rows
// and the counts and medians computed here from the events sent, for a start page, a start event and
// backward from a conversion, over the current and the compared window; with events of the current hour
// (new visitors and stored sessions going on), batches across the hour's start (one moves a visitor to
// another session, one reaches into a stored session), events dated ahead, late events into stored hours
// (after a late event or a batch across the hour's start the range is stale and not read until the job's
// next round, which stores it again), before and after OPTIMIZE … FINAL, and after an erasure (also one with
// as many late bundles, which leaves the bundle count as it was). Each answer
// is checked from the job's in-memory index (path-index.ts), from the stored rows alone (a client without
// it) and with every window asked at once (one statement). Reports only read: the rows are written by the
// journey job's round.
import { beforeAll, expect, test } from "bun:test";
import { insertJourneyRows } from "../../server/ingest/journey/repository";
import { toJourneyRow } from "../../server/ingest/journey/rows";
import { pathIndexHeld, queryPathsRaw, queryPathsStored, type PathRow } from "../../server/journey/read";
import { dropPathIndexes } from "../../server/journey/path-index";
import { refreshPathIndex } from "../../server/journey/path-state-query";
import { refreshJourneyReports } from "../../server/journey/report-cache-job";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { chTime } from "../../server/storage/clickhouse/format";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";
import { type PathEvent as Ev, random, visitorPaths } from "./helpers";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const NOW = Date.now();
const NOW_HOUR = Math.floor(NOW / HOUR) * HOUR;
const account = crypto.randomUUID();
const link = crypto.randomUUID();
const db = useClickhouseBefore(100_000);
let ch: Clickhouse;

const rnd = random(20261130);
const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
const TYPES = ["page_view", "page_view", "page_view", "scroll_depth", "custom", "conversion"];
const CODES = ["page_view", "scroll_depth", "time_on_page", "custom", "conversion"];
const URLS = ["/a", "/b", "/pricing"];
const NAMES = ["signup", "add_to_cart", "purchase"];

const events: Ev[] = [];
let unique = 0;
/** Every event at its own millisecond: no ties for the model to order. */
const ms = (at: number) => at + (++unique % 1000);

function randomEvent(visitor_id: string, session_id: string | undefined, at: number): Ev {
  const type = pick(TYPES);
  const named = type === "custom" || type === "conversion" || (type === "page_view" && rnd() < 0.15);
  return { visitor_id, session_id, event_type: type, event_name: named ? pick(NAMES) : undefined, page_url: pick(URLS), at: ms(at) };
}

/** A session of 1 to 8 events from `at`, a few minutes apart. */
function session(visitor: string, sid: string | undefined, at: number): Ev[] {
  const out: Ev[] = [];
  for (let i = 0, n = 1 + Math.floor(rnd() * 8); i < n; i++, at += Math.floor(rnd() * 240) * 1000) out.push(randomEvent(visitor, sid, at));
  return out;
}

/** One insert batch per call (a bundle: one batch's events of one session and UTC day). */
async function send(list: Ev[]) {
  events.push(...list);
  const receivedMs = Date.now();
  const rows = list.map(({ at, ...e }) =>
    toJourneyRow(crypto.randomUUID(), receivedMs, chTime(receivedMs), account, {
      ...e,
      link_id: link,
      timestamp: new Date(at).toISOString(),
    }),
  );
  await insertJourneyRows(ch, Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n")), rows.length, crypto.randomUUID());
}

const nodeOf = (e: Ev) => `${CODES.indexOf(e.event_type) + 1}:${e.event_type === "page_view" ? e.page_url : (e.event_name ?? "")}`;

/** The report's rows as docs/insights.md defines them, from the events sent: "k|node|next" → visitors, median ms. */
function model(fromMs: number, toMs: number, target: string, direction: "forward" | "backward", steps: number) {
  const rows = new Map<string, number[]>();
  for (const p of visitorPaths(events, { fromMs, toMs, target, direction, steps }, nodeOf)) {
    p.forEach((e, j) => {
      const next = p[j + 1];
      const key = `${j + 1}|${nodeOf(e)}|${next ? nodeOf(next) : "0:"}`;
      rows.set(key, [...(rows.get(key) ?? []), next ? Math.abs(next.at - e.at) : -1]);
    });
  }
  // The median as quantileExact(0.5) gives it (the upper middle of an even count); 0 for those who left.
  const median = (xs: number[]) => (xs[0] < 0 ? 0 : xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
  return Object.fromEntries([...rows].map(([k, xs]) => [k, { n: xs.length, medianMs: median(xs) }]).sort());
}

let names: Map<string, string>;
/** The query's rows in the model's terms (label hashes back to the names sent). */
const shape = (rows: PathRow[]) =>
  Object.fromEntries(
    rows
      .map((r) => {
        const label = (lb: string) => (lb === "0" ? "" : (names.get(lb) ?? `#${lb}`));
        return [`${r.k}|${r.ty}:${label(r.lb)}|${r.nty}:${label(r.nlb)}`, { n: r.n, medianMs: r.medianMs }] as const;
      })
      .sort(),
  );

const CASES: [days: number, target: string, direction: "forward" | "backward", steps: number][] = [
  [7, "/pricing", "forward", 5], // a start page
  [30, "add_to_cart", "forward", 4], // a start event
  [30, "purchase", "backward", 5], // back from a conversion
  [7, "conversion", "backward", 3],
];

/** The windows a report of `days` has: the current one (reaching a day ahead) and the one compare=previous shifts back. */
function windows(days: number) {
  const fromMs = Math.floor((NOW - days * DAY) / HOUR) * HOUR;
  const shift = Math.ceil(days / 7) * WEEK;
  return [
    { fromMs, toMs: NOW + DAY },
    { fromMs: fromMs - shift, toMs: NOW - shift },
  ];
}

/** Late events sent since the job's last round: a stored range holding one is stale. */
let late: number[] = [];
/** An erasure since the job's last round: every range of the link is stale (the bundles' mutation mark moved). */
let mutated = false;

/** Every case and window: the raw rows and the stored ones equal the model's; `stored`: the range is read. */
async function expectExact(stored: boolean) {
  for (const [days, target, direction, steps] of CASES) {
    for (const window of windows(days)) {
      const a = { accountId: account, linkId: link, window, target, direction, steps };
      const want = model(window.fromMs, window.toMs, target, direction, steps);
      expect(Object.keys(want).length).toBeGreaterThan(5);
      const label = { days, target, direction, from: new Date(window.fromMs).toISOString() };
      expect({ ...label, rows: shape(await queryPathsRaw(ch, a)) }).toEqual({ ...label, rows: want });
      const endMs = Math.floor(Math.min(window.toMs, NOW) / HOUR) * HOUR;
      const fresh = stored && !mutated && !late.some((at) => at >= window.fromMs && at < endMs);
      // After a round the job holds the range in memory too (path-index.ts): the stored query reads it.
      expect({ ...label, indexed: pathIndexHeld(ch, a, NOW) }).toEqual({ ...label, indexed: stored });
      const viaStored = await queryPathsStored(ch, a, NOW);
      expect({ ...label, stored: viaStored !== null }).toEqual({ ...label, stored: fresh });
      if (viaStored) expect({ ...label, rows: shape(viaStored) }).toEqual({ ...label, rows: want });
      // The stored rows alone (a client without the index, as another instance): the same answer.
      const viaRows = await queryPathsStored({ ...ch }, a, NOW);
      expect({ ...label, stored: viaRows !== null }).toEqual({ ...label, stored: fresh });
      if (viaRows) expect({ ...label, rows: shape(viaRows) }).toEqual({ ...label, rows: want });
    }
  }
  // Every case and window asked at once (as a report and its comparison are): the indexed reads run as one
  // statement, each its own answer.
  const asked = CASES.flatMap(([days, target, direction, steps]) =>
    windows(days).map((window) => ({ accountId: account, linkId: link, window, target, direction, steps })),
  );
  const answers = await Promise.all(asked.map((a) => queryPathsStored(ch, a, NOW)));
  asked.forEach((a, i) => {
    const label = { target: a.target, direction: a.direction, from: new Date(a.window.fromMs).toISOString() };
    const endMs = Math.floor(Math.min(a.window.toMs, NOW) / HOUR) * HOUR;
    const fresh = stored && !mutated && !late.some((at) => at >= a.window.fromMs && at < endMs);
    expect({ ...label, stored: answers[i] !== null }).toEqual({ ...label, stored: fresh });
    const want = model(a.window.fromMs, a.window.toMs, a.target, a.direction, a.steps);
    if (answers[i]) expect({ ...label, rows: shape(answers[i]!) }).toEqual({ ...label, rows: want });
  });
}

const round = async () => {
  await refreshJourneyReports(ch, NOW);
  late = [];
  mutated = false;
};

beforeAll(async () => {
  ch = db.ch;
  const hashes = await ch.query<{ h: string; v: string }>(
    "SELECT toString(cityHash64(v)) AS h, v FROM (SELECT arrayJoin({vs:Array(String)}) AS v)",
    {
      vs: [...URLS, ...NAMES],
    },
  );
  names = new Map(hashes.map((r) => [r.h, r.v]));
  await ch.command(`SYSTEM STOP MERGES ${ch.table("journey_event_bundles")}`);
  // 150 visitors with 1 to 3 sessions over the 40 days before the current hour; some without a session id.
  const list: Ev[] = [];
  for (let v = 0; v < 150; v++) {
    for (let s = 0, n = 1 + Math.floor(rnd() * 3); s < n; s++) {
      const start = NOW_HOUR - 3 * HOUR - Math.floor(rnd() * 40 * DAY);
      list.push(...session(`v${v}`, rnd() < 0.15 ? undefined : `v${v}s${s}`, start));
    }
  }
  const shuffled = list.sort(() => rnd() - 0.5);
  for (let i = 0; i < shuffled.length; i += 150) await send(shuffled.slice(i, i + 150));
  // Stored sessions that a batch across the hour's start will reach into (below): x1 with every target,
  // x2 with a page view only.
  const x = (visitor_id: string, session_id: string, minutes: number, event_type: string, page_url: string, event_name?: string): Ev => ({
    visitor_id,
    session_id,
    event_type,
    event_name,
    page_url,
    at: ms(NOW_HOUR + minutes * 60_000),
  });
  await send([
    x("x1", "x1a", -30, "custom", "/b", "add_to_cart"),
    x("x1", "x1a", -29, "page_view", "/pricing"),
    x("x1", "x1a", -25, "page_view", "/a"),
    x("x1", "x1a", -24, "conversion", "/b", "purchase"),
  ]);
  await send([x("x2", "x2a", -10, "page_view", "/a")]);
}, 120_000);

test("stored paths give the raw rows and the events' own, with the current hour, batches across its start, events ahead and late ones", async () => {
  // Nothing stored before a round: the reports read the bundles (and note what they asked for).
  await expectExact(false);
  await round();
  await expectExact(true);

  // The current hour: stored sessions going on (the same session ids) and new visitors.
  const current: Ev[] = [];
  for (let v = 0; v < 30; v++) {
    const at = NOW_HOUR + Math.floor(rnd() * Math.max(1, NOW - NOW_HOUR));
    current.push(...session(v < 20 ? `v${v * 7}` : `new${v}`, v < 20 ? `v${v * 7}s0` : `new${v}`, at));
  }
  await send(current);
  await expectExact(true);

  // A batch across the hour's start with target events before x1's stored ones (another session becomes
  // theirs), and one with x2's first target event, before a page view of the same session stored earlier.
  const y = (visitor_id: string, session_id: string, minutes: number, event_type: string, page_url: string, event_name?: string): Ev => ({
    visitor_id,
    session_id,
    event_type,
    event_name,
    page_url,
    at: ms(NOW_HOUR + minutes * 60_000),
  });
  await send([
    y("x1", "x1b", -50, "page_view", "/pricing"),
    y("x1", "x1b", -45, "custom", "/b", "add_to_cart"),
    y("x1", "x1b", -44, "conversion", "/b", "purchase"),
    y("x1", "x1b", 0, "page_view", "/a"),
  ]);
  await send([
    y("x2", "x2a", -15, "custom", "/b", "add_to_cart"),
    y("x2", "x2a", -14, "page_view", "/pricing"),
    y("x2", "x2a", 0, "page_view", "/b"),
  ]);
  // Their events before the hour are new to the stored range: it is stale (the report reads the bundles)
  // until the job's next round stores them; the events since then come on top of the stored paths.
  late.push(...events.slice(-7).map((e) => e.at));
  await expectExact(true);
  await round();
  await expectExact(true);

  // Batches across the hour's start: a stored session goes on with events from before the hour (in the
  // stored hours, but in a bundle that ends in this one), and a new session whose target events come
  // before the visitor's stored ones' reach.
  for (let v = 0; v < 6; v++) {
    const visitor = `v${100 + v}`;
    const sid = v % 2 ? `v${100 + v}s0` : `across${v}`;
    await send([
      { visitor_id: visitor, session_id: sid, event_type: "page_view", page_url: "/pricing", at: ms(NOW_HOUR - 20 * 60_000) },
      {
        visitor_id: visitor,
        session_id: sid,
        event_type: "custom",
        event_name: "add_to_cart",
        page_url: "/b",
        at: ms(NOW_HOUR - 10 * 60_000),
      },
      { visitor_id: visitor, session_id: sid, event_type: "page_view", page_url: "/a", at: ms(NOW_HOUR - 5 * 60_000) },
      { visitor_id: visitor, session_id: sid, event_type: "conversion", event_name: "purchase", page_url: "/b", at: ms(NOW_HOUR + 1) },
    ]);
  }
  late.push(...events.slice(-24).map((e) => e.at));
  await expectExact(true);
  await round();
  await expectExact(true);

  // Events dated ahead (ingest takes them up to a day ahead): the current window counts them.
  await send([...session("v3", "v3s0", NOW + 2 * HOUR), ...session("ahead", "ahead", NOW + 3 * HOUR)]);
  await expectExact(true);

  // Late events into stored hours: three days back (the current windows' ranges go stale, the compared
  // ones not), then ten days back (the 30-day compared range too).
  const threeDays = [
    ...session("late0", "late0", NOW_HOUR - 3 * DAY),
    { visitor_id: "v5", session_id: "late-v5", event_type: "page_view", page_url: "/pricing", at: ms(NOW_HOUR - 3 * DAY - 10 * 60_000) },
    {
      visitor_id: "v5",
      session_id: "late-v5",
      event_type: "custom",
      event_name: "add_to_cart",
      page_url: "/b",
      at: ms(NOW_HOUR - 3 * DAY),
    },
    {
      visitor_id: "v5",
      session_id: "late-v5",
      event_type: "conversion",
      event_name: "purchase",
      page_url: "/b",
      at: ms(NOW_HOUR - 3 * DAY + 60_000),
    },
  ];
  await send(threeDays);
  late.push(...threeDays.map((e) => e.at));
  await expectExact(true);
  await round();
  await expectExact(true);
  const tenDays = session("late1", "late1", NOW_HOUR - 10 * DAY).concat(session("v9", "v9s0", NOW_HOUR - 33 * DAY));
  await send(tenDays);
  late.push(...tenDays.map((e) => e.at));
  await expectExact(true);
  await round();
  await expectExact(true);

  // Whatever ClickHouse merges, the answers stay.
  for (const table of ["journey_event_bundles", "journey_path_states", "journey_path_ranges"] as const) {
    await ch.command(`SYSTEM START MERGES ${ch.table(table)}`);
    await ch.command(`OPTIMIZE TABLE ${ch.table(table)} FINAL`);
  }
  await expectExact(true);

  // An erasure (a visitor's bundles removed): every range of the link is stale (the in-memory ones too)
  // until the job's next round.
  const erased = events.filter((e) => e.visitor_id === "v20");
  expect(erased.length).toBeGreaterThan(0);
  await ch.command(`ALTER TABLE ${ch.table("journey_event_bundles")} DELETE WHERE vh = cityHash64('v20') SETTINGS mutations_sync = 2`);
  events.splice(0, events.length, ...events.filter((e) => e.visitor_id !== "v20"));
  mutated = true;
  await expectExact(true);
  await round();
  await expectExact(true);

  // An erasure of a visitor with one bundle and a late batch adding one bundle at once: the ranges' bundle
  // count stands still, the mutation mark moves. No range is read until the next round, which stores it again.
  const solo = (visitor: string, at: number): Ev[] => [
    { visitor_id: visitor, session_id: visitor, event_type: "page_view", page_url: "/pricing", at: ms(at) },
    { visitor_id: visitor, session_id: visitor, event_type: "custom", event_name: "add_to_cart", page_url: "/b", at: ms(at + 60_000) },
    { visitor_id: visitor, session_id: visitor, event_type: "conversion", event_name: "purchase", page_url: "/b", at: ms(at + 120_000) },
  ];
  await send(solo("solo", NOW_HOUR - 2 * DAY));
  await round();
  await expectExact(true);
  await ch.command(`ALTER TABLE ${ch.table("journey_event_bundles")} DELETE WHERE vh = cityHash64('solo') SETTINGS mutations_sync = 2`);
  events.splice(0, events.length, ...events.filter((e) => e.visitor_id !== "solo"));
  await send(solo("late-solo", NOW_HOUR - 2 * DAY - 3 * HOUR));
  mutated = true;
  await expectExact(true);
  await round();
  await expectExact(true);
}, 300_000);

test("a paths range above the index's limit is not loaded, and the report not tried again for a day", async () => {
  const [days, target, direction, steps] = CASES[0];
  const [window] = windows(days);
  const a = { accountId: account, linkId: link, window, target, direction, steps };
  const endMs = Math.floor(Math.min(window.toMs, NOW) / HOUR) * HOUR;
  const d = { accountId: account, linkId: link, target, direction, steps, lengthMs: endMs - window.fromMs, offsetMs: NOW_HOUR - endMs };
  expect(pathIndexHeld(ch, a, NOW)).toBe(true);
  // A limit below the range's step rows: the held index goes and none is loaded.
  dropPathIndexes(ch, new Set());
  expect(await refreshPathIndex(ch, d, NOW, ch, 10)).toBeNull();
  expect(pathIndexHeld(ch, a, NOW)).toBe(false);
  // Within the day the report is skipped even where it fits (the job's rounds too); the others are loaded,
  // and the stored rows still answer it.
  expect(await refreshPathIndex(ch, d, NOW, ch)).toBeNull();
  await round();
  expect(pathIndexHeld(ch, a, NOW)).toBe(false);
  const [, other] = CASES;
  expect(pathIndexHeld(ch, { ...a, window: windows(other[0])[0], target: other[1], direction: other[2], steps: other[3] }, NOW)).toBe(true);
  const rows = await queryPathsStored(ch, a, NOW);
  expect(rows).not.toBeNull();
  expect(shape(rows!)).toEqual(model(window.fromMs, window.toMs, target, direction, steps));
}, 120_000);
