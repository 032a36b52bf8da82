// The conversions breakdowns by device, country and conversion name count their visitors and converters
// exactly, also for labels far past the 65,536 distinct visitors up to which the rollup's `uniq` states
// were exact (migration 0200; migration 0223 replaced them with exact sets). The events are inserted as
// the spool flusher inserts its chunks (./helpers.ts): this test is about the counts, not the HTTP ingest.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { getConversionBreakdown, getConversionTotals, type Scope } from "../../server/conversions/queries";
import type { Dimension } from "../../server/conversions/model";
import { createTestApp, type TestApp } from "../helpers/app";
import { insertLink } from "../journey/helpers";
import { expectedBreakdown, insertEvents, type LabelDimension, type SentEvent } from "./helpers";

let t: TestApp;
let key: string;
let accountId: string;
let big: string; // 120,000 visitors
let small: string; // 3,000 visitors, to check a one-link scope
beforeAll(async () => {
  t = await createTestApp();
  ({ key, accountId } = await t.createAccount());
  big = await insertLink(t, accountId);
  small = await insertLink(t, accountId);
}, 60_000);
afterAll(() => t.close());

const now = Date.now();
/**
 * Visitor i of a link: a page view, then (5 in 6 of them) a conversion named `order` (with revenue) or,
 * without a conversion name, the event name `signup`; one in 12 converts twice (`order`, then `signup`).
 * Device and country are the visitor's, except that one in 50 converts on a tablet.
 */
function visitorEvents(link: string, prefix: string, i: number): SentEvent[] {
  const visitor = `${prefix}${i}`;
  const ms = now - 60_000 - (i % 72_000) * 1000; // within the last 20 hours
  const base = { link, visitor, device: i % 4 === 3 ? "desktop" : "mobile", country: i % 5 === 0 ? "DE" : "US" };
  const out: SentEvent[] = [{ ...base, type: "page_view", ms }];
  const onDevice = i % 50 === 7 ? "tablet" : base.device;
  if (i % 6 !== 0 && i % 6 !== 5)
    out.push({ ...base, device: onDevice, type: "conversion", ms: ms + 10_000, conversion_name: "order", revenue_cents: 1000 + (i % 7) });
  if (i % 6 === 5 || i % 12 === 1) out.push({ ...base, device: onDevice, type: "conversion", ms: ms + 20_000, event_name: "signup" });
  return out;
}

const sent: SentEvent[] = [];
async function send(events: SentEvent[], chunk: number) {
  await insertEvents(t.runtime.deps.ch, accountId, events, chunk);
  sent.push(...events);
  return t.runtime.deps.ch;
}
const expected = (links: string[], dimension: LabelDimension) => expectedBreakdown(sent, links, dimension);

const rate = (converters: number, visitors: number) => Math.round((converters / visitors) * 100 * 100) / 100;

test("visitors and converters of every device, country and conversion name are exact past 65,536", async () => {
  const bigEvents = Array.from({ length: 120_000 }, (_, i) => visitorEvents(big, "v", i)).flat();
  const smallEvents = Array.from({ length: 3_000 }, (_, i) => visitorEvents(small, "w", i)).flat();
  // Several chunks, as the flusher sends them: each label's sets span parts that may never merge.
  const ch = await send(bigEvents, 60_000);
  await send(smallEvents, 5_000);

  // The data is past where a `uniq` state is exact: it reads another number for the largest label.
  const [guess] = await ch.query<{ u: string; e: string }>(
    `SELECT uniq(visitor_id) AS u, uniqExact(visitor_id) AS e FROM ${ch.table("journey_events")}
     WHERE account_id = {a:UUID} AND link_id = {l:UUID} AND device_type = 'mobile'`,
    { a: accountId, l: big },
  );
  expect(Number(guess.e)).toBe(90_000);
  expect(Number(guess.u)).not.toBe(90_000);

  const fromMs = Math.floor((now - 24 * 3_600_000) / 3_600_000) * 3_600_000;
  for (const [scope, links] of [
    [{ accountId, fromMs }, [big, small]],
    [{ accountId, fromMs, linkIds: [small] }, [small]],
  ] as [Scope, string[]][]) {
    const totals = await getConversionTotals(ch, scope);
    for (const dimension of ["device", "country", "name"] as const) {
      const want = expected(links, dimension);
      expect(await getConversionBreakdown(ch, scope, dimension)).toEqual(want);
      // Through the API: the rates are those of the exact counts.
      const q = scope.linkIds ? `&link_id=${small}` : "";
      const res = await t.call(`/public-api/v1/conversions/breakdown?period=24h&dimension=${dimension}${q}`, { key });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(
        want.map((r) => ({
          label: r.label,
          conversions: r.conversions,
          revenue: r.revenueCents / 100,
          conversion_rate: rate(r.converters, r.visitors),
        })),
      );
    }
    // The same visitors as the conversions summary: a country is the visitor's own, so the countries'
    // visitors and converters add up to the summary's, and a name's visitors are the summary's.
    const byCountry = await getConversionBreakdown(ch, scope, "country");
    expect(byCountry.reduce((n, r) => n + r.visitors, 0)).toBe(totals.visitors);
    expect(byCountry.reduce((n, r) => n + r.converters, 0)).toBe(totals.converters);
    for (const r of await getConversionBreakdown(ch, scope, "name")) expect(r.visitors).toBe(totals.visitors);
    const summary = (await t.call(`/public-api/v1/conversions/summary?period=24h${scope.linkIds ? `&link_id=${small}` : ""}`, { key })).body
      .data;
    expect(summary.unique_converters).toBe(totals.converters);
    expect(summary.conversion_rate).toBe(rate(totals.converters, totals.visitors));
  }
  // Labels past 65,536 distinct visitors, and a conversion name past 65,536 converters.
  const device = expected([big, small], "device");
  expect(device.find((r) => r.label === "mobile")).toMatchObject({ visitors: 92_250 });
  expect(device.find((r) => r.label === "mobile")!.converters).toBeGreaterThan(65_536);
  expect(expected([big, small], "name").find((r) => r.label === "order")!.converters).toBeGreaterThan(65_536);
}, 240_000);

test("a dimension's rows are the same before and after every part is merged", async () => {
  const ch = t.runtime.deps.ch;
  const scope: Scope = { accountId, fromMs: Math.floor((now - 24 * 3_600_000) / 3_600_000) * 3_600_000 };
  const read = () => Promise.all((["device", "country", "name"] as Dimension[]).map((d) => getConversionBreakdown(ch, scope, d)));
  const before = await read();
  await ch.command(`OPTIMIZE TABLE ${ch.table("journey_dims_hourly")} FINAL`);
  expect(await read()).toEqual(before);
}, 120_000);
