// The retention report (server/insights/retention-query.ts) against cohorts computed in the test from the
// events it sent: visitors whose first event falls before the cohorts (not new), visitors who come back in
// some weeks and not others, events without a session; before and after forcing every merge, and with
// compare=previous.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { insertLink, postEvents } from "../journey/helpers";
import { forceMerges, random, stopMerges } from "./helpers";
import { monday, retentionModel } from "./retention-model";

let t: TestApp;
let key: string;
let link: string;

const DAY = 86_400_000;
const WEEK = 7 * DAY;
const NOW = Date.now();
const rnd = random(1129);
const events: { visitor_id: string; session_id?: string; at: number }[] = [];

beforeAll(async () => {
  t = await createTestApp();
  const acc = await t.createAccount();
  key = acc.key;
  link = await insertLink(t, acc.accountId);
  await stopMerges(t);
  // 300 visitors over the last 10 weeks, each with 1 to 6 visits at random times after their first.
  for (let v = 0; v < 300; v++) {
    const first = NOW - Math.floor(rnd() * 70 * DAY);
    for (let i = 0, n = 1 + Math.floor(rnd() * 6); i < n; i++) {
      const at = i === 0 ? first : first + Math.floor(rnd() * (NOW - first));
      events.push({ visitor_id: `r${v}`, session_id: rnd() < 0.2 ? undefined : `r${v}-${i}`, at });
    }
  }
  const shuffled = [...events].sort(() => rnd() - 0.5);
  for (let i = 0; i < shuffled.length; i += 100) {
    const batch = shuffled.slice(i, i + 100).map(({ at, ...e }) => ({
      ...e,
      link_id: link,
      event_type: "page_view",
      page_url: "/",
      timestamp: new Date(at).toISOString(),
    }));
    expect((await postEvents(t, key, batch)).status).toBe(202);
    if (i % 300 === 0) await t.flush();
  }
  await t.flush();
}, 120_000);
afterAll(() => t.close());

const model = (weeks: number, toMs: number, lastMonday: number) => retentionModel(events, weeks, toMs, lastMonday);

const get = async (query: string) => {
  const res = await t.call(`/public-api/v1/journey/links/${link}/retention?${query}`, { key });
  expect(res.status).toBe(200);
  return res.body.data;
};

async function checkAll() {
  for (const weeks of [1, 4, 8]) {
    const expected = model(weeks, Infinity, monday(NOW));
    expect(await get(`weeks=${weeks}`)).toEqual(expected);
    if (weeks === 8) {
      // Visitors first seen before the cohorts are not new in them; some come back, not all.
      expect(expected.visitors).toBeLessThan(300);
      expect(expected.returning).toBeGreaterThan(10);
      expect(expected.returning).toBeLessThan(expected.visitors);
    }
  }
}

test("cohorts and returns match those of the events sent, before and after forced merges", async () => {
  await checkAll();
  await forceMerges(t);
  await checkAll();
}, 120_000);

test("compare=previous is the report over the weeks before; year over 52 weeks before", async () => {
  const report = await get("weeks=3&compare=previous");
  const { comparison } = report;
  expect(comparison.compare).toBe("previous");
  expect(Date.parse(comparison.from)).toBe(monday(NOW) - 5 * WEEK);
  const to = Date.parse(comparison.to);
  expect(to).toBeGreaterThan(NOW - 3 * WEEK - 60_000);
  expect(to).toBeLessThanOrEqual(Date.now() - 3 * WEEK);
  const expected = model(3, to, monday(NOW) - 3 * WEEK);
  expect(comparison.data).toEqual(expected);
  expect(expected.visitors).toBeGreaterThan(10);
  expect(comparison.change.returning).toEqual({
    current: report.returning,
    previous: expected.returning,
    change_percent: expected.returning ? Math.round(((report.returning - expected.returning) / expected.returning) * 10_000) / 100 : null,
  });
  const year = (await get("weeks=3&compare=year")).comparison;
  expect(Date.parse(year.from)).toBe(monday(NOW) - 2 * WEEK - 52 * WEEK);
  expect(year.data.visitors).toBe(0);
});

test("weeks out of range and unknown parameters are refused naming them", async () => {
  for (const [query, field] of [
    ["weeks=0", "weeks"],
    ["weeks=27", "weeks"],
    ["period=7d", "period"],
    ["compare=last", "compare"],
  ]) {
    const res = await t.call(`/public-api/v1/journey/links/${link}/retention?${query}`, { key });
    expect({ query, status: res.status }).toEqual({ query, status: 400 });
    expect(JSON.stringify(res.body.error)).toContain(field);
  }
  const other = await t.createAccount();
  expect((await t.call(`/public-api/v1/journey/links/${link}/retention`, { key: other.key })).status).toBe(404);
});
