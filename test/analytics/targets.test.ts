// Click analytics by source (link or QR scan), A/B variant and targeting rule, and conversions by
// variant: clicks are served by a real redirect server (the variant chosen through its cookie), the
// destination's journey events come back with the click id as visitor id, as the tracker sends them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, listen, type TestApp } from "../helpers/app";
import { variantKey } from "../../server/links/cached-targeting";
import { pageView, postEvents } from "../journey/helpers";

let t: TestApp;
let key: string;
let server: { url: string; stop(): Promise<void> };
const P = "/public-api/v1";
const A = "https://shop.example/a";
const B = "https://shop.example/b";
let link: { id: string; short_code: string };
let ruled: { id: string; short_code: string };

const agent = (n: number) => `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/12${n}.0 Safari/537.36`;
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari/604.1";

/** One click through the variant `url`; returns the click id the destination got in svc_ref. */
async function click(code: string, url: string | null, ua: string, query = "") {
  const headers: Record<string, string> = { "user-agent": ua };
  if (url) headers.cookie = `svc_v=${variantKey(url)}`;
  const res = await fetch(`${server.url}/${code}${query}`, { redirect: "manual", headers });
  expect(res.status).toBe(302);
  const to = new URL(res.headers.get("location")!);
  return { to: to.origin + to.pathname, clickId: to.searchParams.get("svc_ref")?.split(".")[1] };
}

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.createAccount({ tier: "scale" }));
  server = listen(t);
  const created = await t.call(`${P}/links`, {
    method: "POST",
    key,
    json: {
      url: "https://shop.example/",
      title: "Shop",
      description: "D",
      track_conversions: true,
      variants: [
        { url: A, weight: 50 },
        { url: B, weight: 50 },
      ],
    },
  });
  link = created.body.data;
  ruled = (
    await t.call(`${P}/links`, {
      method: "POST",
      key,
      json: {
        url: "https://example.com/",
        title: "T",
        description: "D",
        rules: [{ if: { os: ["ios"] }, url: "https://apps.apple.com/app/id1" }],
      },
    })
  ).body.data;

  // A: three people and a bot; B: two people by link and two by QR scan.
  const visitors: { clickId: string; variant: string }[] = [];
  for (const [url, ua, query] of [
    [A, agent(1), ""],
    [A, agent(2), ""],
    [A, agent(3), ""],
    [B, agent(4), ""],
    [B, agent(5), ""],
    [B, agent(6), "?qr=1"],
    [B, agent(7), "?qr=1"],
  ]) {
    const c = await click(link.short_code, url, ua, query);
    expect(c.to).toBe(url);
    visitors.push({ clickId: c.clickId!, variant: url });
  }
  await click(link.short_code, A, "curl/8.5.0");
  await click(ruled.short_code, null, IPHONE);
  await click(ruled.short_code, null, IPHONE, "?qr=1");
  await click(ruled.short_code, null, agent(8));

  // Every visitor views the shop; one of A's buys for 10.00, one of B's for 5.00.
  const events: Record<string, unknown>[] = visitors.map((v) => pageView(link.id, v.clickId));
  events.push({ ...pageView(link.id, visitors[0].clickId), event_type: "conversion", revenue_cents: 1000, currency: "EUR" });
  events.push({ ...pageView(link.id, visitors[3].clickId), event_type: "conversion", revenue_cents: 500, currency: "EUR" });
  expect((await postEvents(t, key, events)).status).toBe(202);
  await t.flush();
});
afterAll(async () => {
  await server.stop();
  await t.close();
});

const get = async (path: string) => {
  const res = await t.call(`${P}${path}`, { key });
  expect(res.status).toBe(200);
  return res.body.data;
};

describe("GET /links/{id}/stats?group_by", () => {
  test("variant: clicks, visitors, conversions, revenue and conversion rate per variant", async () => {
    const stats = await get(`/links/${link.id}/stats?group_by=variant`);
    expect(stats.total_clicks).toBe(8);
    expect(stats.groups).toEqual([
      {
        variant: A,
        weight: 50,
        total_clicks: 4,
        human_clicks: 3,
        bot_clicks: 1,
        unique_visitors: 3,
        conversions: 1,
        revenue: 10,
        conversion_rate: 33.33,
      },
      {
        variant: B,
        weight: 50,
        total_clicks: 4,
        human_clicks: 4,
        bot_clicks: 0,
        unique_visitors: 4,
        conversions: 1,
        revenue: 5,
        conversion_rate: 25,
      },
    ]);
    // Without group_by, the stats are as before.
    expect((await get(`/links/${link.id}/stats`)).groups).toBeUndefined();
  });

  test("source and rule", async () => {
    const bySource = (await get(`/links/${link.id}/stats?group_by=source`)).groups;
    expect(bySource.map((g: any) => [g.source, g.total_clicks, g.human_clicks]).sort()).toEqual([
      ["link", 6, 5],
      ["qr", 2, 2],
    ]);
    const byRule = (await get(`/links/${ruled.id}/stats?group_by=rule`)).groups;
    expect(byRule).toHaveLength(1);
    expect(byRule[0]).toMatchObject({ rule: 1, url: "https://apps.apple.com/app/id1", total_clicks: 2, human_clicks: 2 });
    const bad = await t.call(`${P}/links/${link.id}/stats?group_by=colour`, { key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0].field).toBe("query.group_by");
  });
});

describe("analytics reports", () => {
  test("source filters every report; the aggregates and the raw path agree", async () => {
    const qr = await get("/analytics/summary?source=qr");
    expect(qr.analytics).toMatchObject({ total_clicks: 3, unique_visitors: 3, active_links: 2, today_clicks: 3 });
    const viaLink = await get("/analytics/summary?source=link");
    expect(viaLink.analytics.total_clicks).toBe(7); // people only (bot_filter real)
    expect((await get("/analytics/summary")).analytics.total_clicks).toBe(10);
    expect((await get("/analytics/summary?source=link&bot_filter=bot")).analytics.total_clicks).toBe(1);
    const sum = (rows: { clicks: number }[]) => rows.reduce((a, r) => a + r.clicks, 0);
    expect(sum((await get("/analytics/timeseries?source=qr")).analytics)).toBe(3);
    expect(sum((await get("/analytics/geo?source=qr")).analytics)).toBe(3);
    expect(sum((await get("/analytics/devices?source=qr")).analytics)).toBe(3);
    expect(sum((await get("/analytics/referrers?source=qr")).analytics)).toBe(3);
    expect(sum((await get("/analytics/hourly?source=qr")).analytics)).toBe(3);
    expect((await get("/analytics/devices?source=qr")).analytics.find((d: any) => d.device_type === "mobile")?.clicks).toBe(1);
    expect(sum((await get("/analytics/geo?source=link")).analytics)).toBe(7);
    const bad = await t.call(`${P}/analytics/geo?source=email`, { key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0].field).toBe("query.source");
  });

  test("summary and timeseries group_by: per link and variant, per rule, per source", async () => {
    const summary = (await get("/analytics/summary?group_by=variant")).analytics;
    expect(summary.groups).toEqual([
      { link_id: link.id, variant: B, clicks: 4, unique_visitors: 4 },
      { link_id: link.id, variant: A, clicks: 3, unique_visitors: 3 },
    ]);
    expect((await get("/analytics/summary?group_by=rule")).analytics.groups).toEqual([
      { link_id: ruled.id, rule: 1, clicks: 2, unique_visitors: 1 },
    ]);
    const series = (await get("/analytics/timeseries?group_by=source&days=2")).analytics;
    expect(series).toHaveLength(2);
    expect(series[0].groups).toEqual([]);
    expect(series[1].groups).toEqual([
      { source: "link", clicks: 7, unique_visitors: 7 },
      { source: "qr", clicks: 3, unique_visitors: 3 },
    ]);
  });
});

describe("GET /conversions/breakdown?dimension=variant", () => {
  test("conversions, revenue and rate per variant, from the visitors each variant's clicks brought", async () => {
    const rows = await get(`/conversions/breakdown?dimension=variant&link_id=${link.id}`);
    expect(rows).toEqual([
      { label: A, conversions: 1, revenue: 10, conversion_rate: 33.33 },
      { label: B, conversions: 1, revenue: 5, conversion_rate: 25 },
    ]);
  });
});
