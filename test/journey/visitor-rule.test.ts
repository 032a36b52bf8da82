// The rule of every journey visitor count on both sides of its threshold: up to 100,000 visitors the
// summary, the funnel and the conversion reports count exactly; beyond, all of them report the same
// estimate, within the error docs/accuracy.md gives. The events are written in bulk (INSERT … SELECT,
// through the materialized views as the flusher's inserts are): this test is about the queries.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { EXACT_UP_TO } from "../../server/journey/visitors-query";
import { insertLink } from "./helpers";

let t: TestApp;
let key: string;
let accountId: string;
beforeAll(async () => {
  t = await createTestApp();
  ({ key, accountId } = await t.createAccount());
}, 60_000);
afterAll(() => t.close());

/** `visitors` visitors with a page view each in the last 20 hours, one in 20 of them converting. */
async function insertVisitors(link: string, visitors: number) {
  const ch = t.runtime.deps.ch;
  await ch.command(
    `INSERT INTO ${ch.table("journey_events")} (event_id, received_at, timestamp, account_id, link_id, visitor_id, session_id, event_type, page_url, properties)
     SELECT generateUUIDv4(number), now64(3), now64(3) - toIntervalSecond(number % 72000), {account:UUID}, {link:UUID},
       concat('v', toString(number)), concat('s', toString(number)), if(number % 20 = 0, 'conversion', 'page_view'), 'https://shop.example/', '{}'
     FROM numbers({n:UInt64})`,
    { account: accountId, link, n: visitors },
  );
}

const read = async (link: string) => {
  const summary = (await t.call(`/public-api/v1/journey/links/${link}/summary?period=24h`, { key })).body.data;
  const funnel = (await t.call(`/public-api/v1/journey/links/${link}/funnel?period=24h&steps=page_view,conversion`, { key })).body.data;
  const conversions = (await t.call(`/public-api/v1/conversions/summary?period=24h&link_id=${link}`, { key })).body.data;
  return { summary, funnel, conversions };
};

test(`exact up to ${EXACT_UP_TO.toLocaleString("en-US")} visitors, in every report`, async () => {
  const link = await insertLink(t, accountId);
  const n = 90_000;
  await insertVisitors(link, n);
  const { summary, funnel, conversions } = await read(link);
  expect(summary.total_visitors).toBe(n);
  expect(funnel.total_visitors).toBe(n);
  expect(conversions.unique_converters).toBe(n / 20);
  expect(conversions.conversion_rate).toBe(5);
}, 120_000);

test("beyond it, the same estimate in every report, within the measured bound (2.5%)", async () => {
  const link = await insertLink(t, accountId);
  const n = 130_000;
  await insertVisitors(link, n);
  const { summary, funnel, conversions } = await read(link);
  expect(Math.abs(summary.total_visitors - n) / n).toBeLessThan(0.025);
  expect(funnel.total_visitors).toBe(summary.total_visitors);
  // The converters (6,500) are counted exactly; the rate divides them by the same visitors.
  expect(conversions.unique_converters).toBe(n / 20);
  expect(conversions.conversion_rate).toBe(Math.round((n / 20 / summary.total_visitors) * 100 * 100) / 100);
}, 120_000);
