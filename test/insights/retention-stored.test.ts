// The retention report from the journey job's stored per-visitor state (migration 0275,
// server/journey/retention-state-query.ts) must give the answer of the raw bundles and of the events
// sent: after the job's round, with events of the current hour on top (new visitors and returning ones),
// after late events dated into stored weeks (the state is then stale and not read until the next round),
// with compare=previous (a window ending inside a week), and after forced merges; the job's in-memory
// index (retention-index.ts) the same, also with batches across the hour's start, visitors either side of
// each compared window's end and an erasure (also one with as many late bundles, which leaves their count as it was,
// and rows gone without a mutation with as many late bundles, which only the job's sums see); a link above
// the index's limit is not loaded, for a day.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { queryRetentionStored, retentionIndexReader } from "../../server/journey/read";
import { queryRetentionRaw } from "../../server/insights/retention-query";
import { dropRetentionIndexes, refreshRetentionIndex } from "../../server/journey/retention-index";
import { mondayOf } from "../../server/insights/service";
import { createTestApp, type TestApp } from "../helpers/app";
import { insertLink, postEvents } from "../journey/helpers";
import { forceMerges, random, stopMerges } from "./helpers";
import { retentionModel } from "./retention-model";

let t: TestApp;
let key: string;
let accountId: string;
let link: string;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const NOW = Date.now();
const rnd = random(20261129);
const events: { visitor_id: string; session_id?: string; at: number }[] = [];

async function send(list: typeof events) {
  events.push(...list);
  for (let i = 0; i < list.length; i += 100) {
    const batch = list.slice(i, i + 100).map(({ at, ...e }) => ({
      ...e,
      link_id: link,
      event_type: "page_view",
      page_url: "/",
      timestamp: new Date(at).toISOString(),
    }));
    expect((await postEvents(t, key, batch)).status).toBe(202);
    await t.flush();
  }
}

beforeAll(async () => {
  // The job runs only when the test says (runOnce), so that "not stored yet" is a state the test controls.
  t = await createTestApp({}, {}, { jobs: false });
  const acc = await t.createAccount();
  key = acc.key;
  accountId = acc.accountId;
  link = await insertLink(t, acc.accountId);
  await stopMerges(t);
  // 250 visitors over the last 30 weeks (before the hour began), each with 1 to 6 visits after their first.
  const hour = Math.floor(NOW / HOUR) * HOUR;
  const list: typeof events = [];
  for (let v = 0; v < 250; v++) {
    const first = hour - 1 - Math.floor(rnd() * 210 * DAY);
    for (let i = 0, n = 1 + Math.floor(rnd() * 6); i < n; i++) {
      const at = i === 0 ? first : first + Math.floor(rnd() * (hour - 1 - first));
      list.push({ visitor_id: `v${v}`, session_id: rnd() < 0.2 ? undefined : `v${v}-${i}`, at });
    }
  }
  // Around each compared window's end (now, `weeks` weeks back, inside its last week): a return an hour
  // before it and one an hour after, a first visit an hour before it.
  for (const weeks of [1, 4, 8, 26]) {
    const end = NOW - weeks * WEEK;
    list.push(
      { visitor_id: `cut${weeks}a`, session_id: `cut${weeks}a0`, at: end - 2 * WEEK },
      { visitor_id: `cut${weeks}a`, session_id: `cut${weeks}a1`, at: end - HOUR },
      { visitor_id: `cut${weeks}b`, session_id: `cut${weeks}b0`, at: end - 3 * WEEK },
      { visitor_id: `cut${weeks}b`, session_id: `cut${weeks}b1`, at: end + HOUR },
      { visitor_id: `cut${weeks}c`, session_id: `cut${weeks}c0`, at: end - HOUR },
    );
  }
  await send(list.sort(() => rnd() - 0.5));
}, 120_000);
afterAll(() => t.close());

const model = (weeks: number, toMs: number, lastMonday: number) => retentionModel(events, weeks, toMs, lastMonday);

const get = async (query: string) => {
  const res = await t.call(`/public-api/v1/journey/links/${link}/retention?${query}`, { key });
  expect(res.status).toBe(200);
  return res.body.data;
};

/** Whether the stored state answers a window (null: not stored, stale or too short). */
const stored = (fromMs: number, toMs: number, weeks: number) =>
  queryRetentionStored(t.runtime.deps.ch, accountId, link, { fromMs, toMs }, weeks);

const numbers = (rows: { c: number; n: string; ret: string; by_week: string[] }[]) =>
  rows.map((r) => ({ c: Number(r.c), n: Number(r.n), ret: Number(r.ret), by_week: r.by_week.map(Number) }));

/** Whether the job's in-memory index answers a window (null: not loaded, stale or too short). */
const indexed = (fromMs: number, toMs: number, weeks: number) =>
  retentionIndexReader(t.runtime.deps.ch, { accountId, linkId: link })({ fromMs, toMs }, weeks);

/**
 * Every report against the events, and the stored rows and the in-memory index's against the raw query's,
 * for the current and compared windows.
 */
async function checkAll(expectStored: boolean) {
  const ch = t.runtime.deps.ch;
  for (const weeks of [1, 4, 8, 26]) {
    const report = await get(`weeks=${weeks}&compare=previous`);
    const { comparison, ...current } = report;
    expect(current).toEqual(model(weeks, Infinity, mondayOf(NOW)));
    const to = Date.parse(comparison.to);
    expect(comparison.data).toEqual(model(weeks, to, mondayOf(NOW) - weeks * WEEK));
    const windows = [
      { fromMs: mondayOf(NOW) - (weeks - 1) * WEEK, toMs: Date.now() + DAY },
      { fromMs: Date.parse(comparison.from), toMs: to },
      // An end earlier than the last one asked (the index's cut of the last week is kept and moved).
      { fromMs: Date.parse(comparison.from), toMs: to - 2 * HOUR },
    ];
    for (const w of windows) {
      const fromState = await stored(w.fromMs, w.toMs, weeks);
      const fromIndex = await indexed(w.fromMs, w.toMs, weeks);
      if (!expectStored) {
        expect(fromState).toBeNull();
        expect(fromIndex).toBeNull();
        continue;
      }
      expect(fromIndex).not.toBeNull();
      expect(numbers(fromIndex!)).toEqual(numbers(await queryRetentionRaw(ch, accountId, link, w, weeks)));
      // The comparison of 26 weeks starts 51 weeks back: within the 64 weeks the state keeps.
      expect(fromState).not.toBeNull();
      expect(fromState).toEqual(await queryRetentionRaw(ch, accountId, link, w, weeks));
    }
  }
}

test("the stored state gives the raw answer, with the current hour's events and after late events", async () => {
  const ch = t.runtime.deps.ch;
  // Before any round, nothing is stored: the reports answer from the bundles (and note the link).
  await checkAll(false);
  await t.runtime.jobs.journey.runOnce();
  await checkAll(true);

  // The current hour: new visitors, visitors coming back (some first seen in the compared weeks).
  const hour = Math.floor(Date.now() / HOUR) * HOUR;
  const now: typeof events = [];
  for (let v = 0; v < 40; v++) {
    now.push({ visitor_id: v < 20 ? `new${v}` : `v${v * 5}`, session_id: `h${v}`, at: hour + Math.floor(rnd() * (Date.now() - hour)) });
  }
  // Batches across the hour's start (one bundle each, begun in a stored hour): a new visitor, a known one.
  for (const v of ["span0", "v12"]) {
    now.push({ visitor_id: v, session_id: `${v}-span`, at: hour - 5 * 60_000 }, { visitor_id: v, session_id: `${v}-span`, at: hour });
  }
  await send(now);
  await checkAll(true);

  // Late events dated into stored weeks: a new visitor first seen 3 weeks ago, an old one back 20 weeks ago
  // and one first seen earlier than their stored first visit. The stored range is stale until the next round.
  await send([
    { visitor_id: "late0", session_id: "late0", at: NOW - 3 * WEEK },
    { visitor_id: "v7", session_id: "late1", at: NOW - 20 * WEEK },
    { visitor_id: "v9", at: NOW - 31 * WEEK },
  ]);
  await checkAll(false);
  await t.runtime.jobs.journey.runOnce();
  await checkAll(true);

  await forceMerges(t);
  await checkAll(true);

  // An erasure (a visitor's bundles removed): the index and the stored range no longer hold until the next round.
  const v = events.find((e) => e.at < hour - WEEK)!.visitor_id;
  await ch.command(
    `ALTER TABLE ${ch.table("journey_event_bundles")} DELETE WHERE vh = cityHash64({v:String}) SETTINGS mutations_sync = 1`,
    { v },
  );
  events.splice(0, events.length, ...events.filter((e) => e.visitor_id !== v));
  expect(await indexed(mondayOf(NOW) - 7 * WEEK, Date.now() + DAY, 8)).toBeNull();
  await t.runtime.jobs.journey.runOnce();
  await checkAll(true);

  // An erasure of a visitor with one bundle and a late event adding one bundle at once: the count stands
  // still, the mutation mark moves. Neither the index nor the stored range is read until the next round,
  // which computes them again.
  await send([{ visitor_id: "solo", session_id: "solo", at: NOW - 2 * WEEK }]);
  await t.runtime.jobs.journey.runOnce();
  await checkAll(true);
  await ch.command(`ALTER TABLE ${ch.table("journey_event_bundles")} DELETE WHERE vh = cityHash64('solo') SETTINGS mutations_sync = 2`);
  events.splice(0, events.length, ...events.filter((e) => e.visitor_id !== "solo"));
  await send([{ visitor_id: "late-solo", session_id: "late-solo", at: NOW - 3 * WEEK }]);
  await checkAll(false);
  await t.runtime.jobs.journey.runOnce();
  await checkAll(true);
}, 300_000);

test("rows gone without a mutation and as many late bundles: the job's next round computes the state again", async () => {
  const ch = t.runtime.deps.ch;
  await stopMerges(t);
  // A visitor's only bundle in a part of its own (merges stopped), then that part detached: no mutation,
  // the bundle count back to what it was once a late event adds one bundle; only the job's sums see it.
  await send([{ visitor_id: "parted", session_id: "parted", at: NOW - 5 * WEEK }]);
  await t.runtime.jobs.journey.runOnce();
  await checkAll(true);
  const parts = await ch.query<{ part: string; rows: string }>(
    `SELECT _part AS part, toString(count()) AS rows FROM ${ch.table("journey_event_bundles")} WHERE _part IN (
      SELECT _part FROM ${ch.table("journey_event_bundles")} WHERE vh = cityHash64('parted')) GROUP BY _part`,
  );
  expect(parts).toEqual([{ part: parts[0].part, rows: "1" }]);
  await ch.command(`ALTER TABLE ${ch.table("journey_event_bundles")} DETACH PART '${parts[0].part}'`);
  events.splice(0, events.length, ...events.filter((e) => e.visitor_id !== "parted"));
  await send([{ visitor_id: "late-parted", session_id: "late-parted", at: NOW - 6 * WEEK }]);
  await t.runtime.jobs.journey.runOnce();
  await checkAll(true);
}, 120_000);

test("a link above the index's limit is not loaded, and not tried again for a day", async () => {
  const ch = t.runtime.deps.ch;
  const l = { accountId, linkId: link };
  const w = { fromMs: mondayOf(NOW) - 3 * WEEK, toMs: Date.now() + DAY };
  await t.runtime.jobs.journey.runOnce();
  expect(await indexed(w.fromMs, w.toMs, 4)).not.toBeNull();
  // A limit below the link's visitors: the held index goes and none is loaded.
  dropRetentionIndexes(ch, []);
  await refreshRetentionIndex(ch, l, Date.now(), ch, 10);
  expect(await indexed(w.fromMs, w.toMs, 4)).toBeNull();
  // Within the day the link is skipped even where it fits (the job's rounds too); the stored state still answers.
  await refreshRetentionIndex(ch, l, Date.now(), ch);
  await t.runtime.jobs.journey.runOnce();
  expect(await indexed(w.fromMs, w.toMs, 4)).toBeNull();
  expect(await stored(w.fromMs, w.toMs, 4)).toEqual(await queryRetentionRaw(ch, accountId, link, w, 4));
}, 120_000);
