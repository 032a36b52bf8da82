// The conversions breakdowns by device, country and conversion name count their visitors and converters
// exactly, also for labels far past the 65,536 distinct visitors up to which the rollup's `uniq` states
// were exact (migration 0200; migration 0223 replaced them with exact sets). The events are built here,
// made rows by the ingest's own code and inserted as the spool flusher inserts a chunk (through every
// materialized view), in several chunks: this test is about the counts, not the HTTP ingest.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { getConversionBreakdown, getConversionTotals, type Scope } from "../../server/conversions/queries";
import type { Dimension } from "../../server/conversions/model";
import { insertJourneyRows } from "../../server/ingest/journey/repository";
import { toJourneyRow } from "../../server/ingest/journey/rows";
import { chTime } from "../../server/storage/clickhouse/format";
import { createTestApp, type TestApp } from "../helpers/app";
import { insertLink } from "../journey/helpers";

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

interface Sent {
  link: string;
  visitor: string;
  type: "page_view" | "conversion";
  ms: number;
  device: string;
  country: string;
  conversion_name?: string;
  event_name?: string;
  revenue_cents?: number;
}

const now = Date.now();
/**
 * Visitor i of a link: a page view, then (5 in 6 of them) a conversion named `order` (with revenue) or,
 * without a conversion name, the event name `signup`; one in 12 converts twice (`order`, then `signup`).
 * Device and country are the visitor's, except that one in 50 converts on a tablet.
 */
function visitorEvents(link: string, prefix: string, i: number): Sent[] {
  const visitor = `${prefix}${i}`;
  const ms = now - 60_000 - (i % 72_000) * 1000; // within the last 20 hours
  const base = { link, visitor, device: i % 4 === 3 ? "desktop" : "mobile", country: i % 5 === 0 ? "DE" : "US" };
  const out: Sent[] = [{ ...base, type: "page_view", ms }];
  const onDevice = i % 50 === 7 ? "tablet" : base.device;
  if (i % 6 !== 0 && i % 6 !== 5)
    out.push({ ...base, device: onDevice, type: "conversion", ms: ms + 10_000, conversion_name: "order", revenue_cents: 1000 + (i % 7) });
  if (i % 6 === 5 || i % 12 === 1) out.push({ ...base, device: onDevice, type: "conversion", ms: ms + 20_000, event_name: "signup" });
  return out;
}

const sent: Sent[] = [];
async function send(events: Sent[], chunk: number) {
  const ch = t.runtime.deps.ch;
  for (let from = 0; from < events.length; from += chunk) {
    const part = events.slice(from, from + chunk);
    const received = chTime(now);
    const rows = part.map((e) =>
      toJourneyRow(crypto.randomUUID(), now, received, accountId, {
        link_id: e.link,
        visitor_id: e.visitor,
        session_id: `s-${e.visitor}`,
        event_type: e.type,
        event_name: e.event_name,
        page_url: "https://shop.example/",
        conversion_name: e.conversion_name,
        revenue_cents: e.revenue_cents,
        device_type: e.device,
        country_code: e.country,
        timestamp: new Date(e.ms).toISOString(),
      }),
    );
    await insertJourneyRows(
      t.runtime.deps.ch,
      Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n")),
      rows.length,
      crypto.randomUUID(),
    );
    sent.push(...part);
  }
  return ch;
}

/** What the breakdown must say, computed from the events sent: per label, its events' visitors and converters. */
function expected(links: string[], dimension: "device" | "country" | "name") {
  const rows = new Map<string, { conversions: number; revenueCents: number; visitors: Set<string>; converters: Set<string> }>();
  const all = new Set<string>();
  for (const e of sent) {
    if (!links.includes(e.link)) continue;
    all.add(e.visitor);
    if (dimension === "name" && e.type !== "conversion") continue;
    const label = dimension === "device" ? e.device : dimension === "country" ? e.country : e.conversion_name || e.event_name || "";
    const row = rows.get(label) ?? { conversions: 0, revenueCents: 0, visitors: new Set(), converters: new Set() };
    rows.set(label, row);
    row.visitors.add(e.visitor);
    if (e.type === "conversion") {
      row.conversions++;
      row.revenueCents += e.revenue_cents ?? 0;
      row.converters.add(e.visitor);
    }
  }
  return [...rows]
    .map(([label, r]) => ({
      label,
      conversions: r.conversions,
      revenueCents: r.revenueCents,
      converters: r.converters.size,
      // A conversion name's rate is over every visitor in scope.
      visitors: dimension === "name" ? all.size : r.visitors.size,
    }))
    .filter((r) => r.conversions > 0)
    .sort((a, b) => b.conversions - a.conversions || (a.label < b.label ? -1 : 1));
}

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
