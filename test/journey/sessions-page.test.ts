// The sessions list of a link with more sessions than a page: the newest-first pages (read from the
// event bundles, migration 0207) agree with the order of every session's first event, also when a
// session's events arrived in two batches far apart.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { ago, insertLink, postEvents } from "./helpers";

let t: TestApp;
let key: string;
let link: string;
// 12 sessions of two events, session i starting 10*i+5 minutes ago.
const STARTS = Array.from({ length: 12 }, (_, i) => ({ id: `s${i}`, minutesAgo: 10 * i + 5 }));
const event = (session: string, minutesAgo: number) => ({
  link_id: link,
  visitor_id: `v-${session}`,
  session_id: session,
  event_type: "page_view",
  page_url: `https://shop.example/${session}`,
  timestamp: ago(minutesAgo),
});

let s11Start = 0;
beforeAll(async () => {
  t = await createTestApp();
  const acc = await t.createAccount();
  key = acc.key;
  link = await insertLink(t, acc.accountId);
  const events = STARTS.flatMap((s) => [event(s.id, s.minutesAgo), event(s.id, s.minutesAgo - 2)]);
  s11Start = Date.parse(events.find((e) => e.session_id === "s11")!.timestamp);
  expect((await postEvents(t, key, events)).status).toBe(202);
  await t.flush();
}, 60_000);
afterAll(() => t.close());

const page = async (limit: number, n: number) => {
  const res = await t.call(`/public-api/v1/journey/links/${link}/sessions?period=24h&limit=${limit}&page=${n}`, { key });
  expect(res.status).toBe(200);
  return res.body;
};
const allPages = async (limit: number) => {
  const ids: string[] = [];
  for (let n = 1; n <= Math.ceil(STARTS.length / limit) + 1; n++)
    ids.push(...(await page(limit, n)).data.map((s: { session_id: string }) => s.session_id));
  return ids;
};

test("pages of one and two sessions list every session once, newest first", async () => {
  const expected = STARTS.map((s) => s.id);
  expect(await allPages(1)).toEqual(expected);
  expect(await allPages(2)).toEqual(expected);
  const first = await page(2, 1);
  expect(first.meta).toMatchObject({ total: STARTS.length, per_page: 2 });
  expect(first.data[0]).toMatchObject({ session_id: "s0", event_count: 2, visitor_id: "v-s0", entry_page: "https://shop.example/s0" });
  expect(Math.abs(first.data[0].duration_seconds - 120)).toBeLessThan(1);
});

test("a session whose events arrived in two batches ranks by its first event", async () => {
  // s11 started 115 minutes ago; a late batch adds an event a minute ago.
  const late = event("s11", 1);
  expect((await postEvents(t, key, [late])).status).toBe(202);
  await t.flush();
  const expected = STARTS.map((s) => s.id);
  expect(await allPages(1)).toEqual(expected);
  const last = (await page(1, 12)).data[0];
  expect(last).toMatchObject({ session_id: "s11", event_count: 3 });
  expect(last.duration_seconds).toBe((Date.parse(late.timestamp) - s11Start) / 1000);
  expect((await page(1, 1)).meta.total).toBe(STARTS.length);
});

test("when the sessions that ended last started long ago, the newest-started sessions still come first", async () => {
  // Six long sessions end last (started 100+ minutes ago, still running); thirty short ones started 10 to
  // 39 minutes ago. The latest-ending bundles then hold no session started after them, so the page is
  // found from a bound further back (or, failing that, the general query): the order is the same.
  const acc = await t.createAccount();
  const other = await insertLink(t, acc.accountId);
  const ev = (session: string, minutesAgo: number) => ({
    link_id: other,
    visitor_id: `v-${session}`,
    session_id: session,
    event_type: "page_view",
    page_url: `https://shop.example/${session}`,
    timestamp: ago(minutesAgo),
  });
  const long = Array.from({ length: 6 }, (_, i) => `long${i}`);
  const short = Array.from({ length: 30 }, (_, i) => `short${String(i).padStart(2, "0")}`);
  const events = [
    ...long.flatMap((s, i) => [ev(s, 100 + i), ev(s, 0.1 * (i + 1))]),
    ...short.flatMap((s, i) => [ev(s, 10 + i), ev(s, 9 + i)]),
  ];
  expect((await postEvents(t, acc.key, events)).status).toBe(202);
  await t.flush();
  const list = async (limit: number, n: number) => {
    const res = await t.call(`/public-api/v1/journey/links/${other}/sessions?period=24h&limit=${limit}&page=${n}`, { key: acc.key });
    expect(res.status).toBe(200);
    return res.body as { data: { session_id: string; event_count: number; duration_seconds: number }[]; meta: { total: number } };
  };
  const first = await list(1, 1);
  expect(first.data).toMatchObject([{ session_id: "short00", event_count: 2, duration_seconds: 60 }]);
  expect(first.meta.total).toBe(36);
  const ids: string[] = [];
  for (let n = 1; n <= 8; n++) ids.push(...(await list(5, n)).data.map((s) => s.session_id));
  expect(ids).toEqual([...short, ...long]);
  expect((await list(1, 31)).data).toMatchObject([{ session_id: "long0", event_count: 2 }]);
});
