// The link filters of the click reports (link_id, tag, campaign_id) and domain: each report answers
// the clicks sent to the links it names, which differ from the account's totals; another account's
// link, tag or campaign is 404.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";
import { get, P, UA, visit } from "./helpers";

let t: TestApp;
let key: string;
let otherKey: string;
const ids: Record<string, string> = {};
let campaignId = "";
let otherLinkId = "";
let otherCampaignId = "";

async function link(k: string, url: string, extra: Record<string, unknown> = {}) {
  const res = await t.call(`${P}/links`, { method: "POST", key: k, json: { url, ...extra } });
  if (res.status !== 201) throw new Error(`create link failed: ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; short_code: string };
}

async function campaign(k: string, name: string) {
  const res = await t.call(`${P}/campaigns`, { method: "POST", key: k, json: { name } });
  if (res.status !== 201) throw new Error(`create campaign failed: ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

beforeAll(async () => {
  t = await createTestApp({}, { TRUST_PROXY: "true" });
  ({ key } = await t.createAccount({ tier: "scale" }));
  ({ key: otherKey } = await t.createAccount({ tier: "scale" }));
  campaignId = await campaign(key, "Spring");
  const a = await link(key, "https://example.com/a", { tags: ["promo"] });
  const b = await link(key, "https://example.com/b", { campaign_id: campaignId });
  const c = await link(key, "https://example.com/c");
  Object.assign(ids, { a: a.id, b: b.id, c: c.id });
  // Link a: one person twice from Google on an iPhone in the US, and a crawler.
  await visit(t, a.short_code, { ip: "8.8.8.8", ua: UA.iphone, referrer: "https://www.google.com/search?q=x" });
  await visit(t, a.short_code, { ip: "8.8.8.8", ua: UA.iphone, referrer: "https://www.google.com/search?q=x" });
  await visit(t, a.short_code, { ip: "200.160.2.3", ua: UA.googlebot });
  // Link b: one person in Great Britain on Windows, direct. Link c: one in Japan from t.co.
  await visit(t, b.short_code, { ip: "81.2.69.142", ua: UA.windowsChrome });
  await visit(t, c.short_code, { ip: "133.242.0.1", ua: UA.windowsChrome, referrer: "https://t.co/abc" });
  const other = await link(otherKey, "https://example.com/other", { tags: ["secret"] });
  otherLinkId = other.id;
  otherCampaignId = await campaign(otherKey, "Theirs");
  await t.flush();
}, 60_000);
afterAll(() => t.close());

const report = async (path: string, qs = "") => {
  const res = await get(t, key, `/analytics/${path}${qs ? `?${qs}` : ""}`);
  expect({ path, qs, status: res.status, error: res.body.error }).toEqual({ path, qs, status: 200, error: undefined });
  return res.body.data.analytics;
};
const hourlyClicks = (rows: { clicks: number }[]) => rows.reduce((n, r) => n + r.clicks, 0);
const todayOf = (rows: { date: string; clicks: number; unique_visitors: number }[]) => rows[rows.length - 1];

describe("link_id", () => {
  test("every report answers the link's own clicks, not the account's", async () => {
    const qs = `link_id=${ids.a}`;
    expect(await report("summary", qs)).toMatchObject({
      total_clicks: 2,
      unique_visitors: 1,
      total_links: 1,
      active_links: 1,
      today_clicks: 2,
    });
    expect(todayOf(await report("timeseries", qs))).toMatchObject({ clicks: 2, unique_visitors: 1 });
    expect(await report("geo", qs)).toEqual([{ country_code: "US", clicks: 2, unique_visitors: 1 }]);
    expect(await report("devices", qs)).toEqual([{ device_type: "mobile", browser: "Mobile Safari", os: "iOS", clicks: 2 }]);
    expect(await report("referrers", qs)).toEqual([{ referrer: "www.google.com", clicks: 2, unique_visitors: 1 }]);
    expect(hourlyClicks(await report("hourly", qs))).toBe(2);

    // The account's totals are other numbers: the filter is not ignored.
    expect(await report("summary")).toMatchObject({ total_clicks: 4, unique_visitors: 3, total_links: 3, active_links: 3 });
    expect((await report("geo")).map((r: { country_code: string }) => r.country_code).sort()).toEqual(["GB", "JP", "US"]);
    expect(hourlyClicks(await report("hourly"))).toBe(4);
  });

  test("with bot_filter: the link's crawler visit alone, or everything", async () => {
    expect(await report("summary", `link_id=${ids.a}&bot_filter=bot`)).toMatchObject({ total_clicks: 1 });
    expect(await report("summary", `link_id=${ids.a}&bot_filter=all`)).toMatchObject({ total_clicks: 3 });
    expect(hourlyClicks(await report("hourly", `link_id=${ids.a}&bot_filter=all`))).toBe(3);
  });

  test("with group_by and source", async () => {
    const grouped = await report("summary", `link_id=${ids.a}&group_by=source`);
    expect(grouped.groups).toEqual([{ source: "link", clicks: 2, unique_visitors: 1 }]);
    expect(await report("geo", `link_id=${ids.a}&source=qr`)).toEqual([]);
    expect(await report("geo", `link_id=${ids.b}&source=link`)).toEqual([{ country_code: "GB", clicks: 1, unique_visitors: 1 }]);
  });
});

describe("tag and campaign_id", () => {
  test("a tag answers the clicks of the links carrying it", async () => {
    expect(await report("summary", "tag=promo")).toMatchObject({ total_clicks: 2, total_links: 1 });
    expect(await report("referrers", "tag=promo")).toEqual([{ referrer: "www.google.com", clicks: 2, unique_visitors: 1 }]);
  });

  test("a campaign answers the clicks of its links", async () => {
    const qs = `campaign_id=${campaignId}`;
    expect(await report("summary", qs)).toMatchObject({ total_clicks: 1, total_links: 1 });
    expect(await report("geo", qs)).toEqual([{ country_code: "GB", clicks: 1, unique_visitors: 1 }]);
    expect(await report("devices", qs)).toEqual([{ device_type: "desktop", browser: "Chrome", os: "Windows", clicks: 1 }]);
  });

  test("filters together are the links meeting all of them; none is zeros, not the account", async () => {
    const none = `tag=promo&link_id=${ids.b}`;
    expect(await report("summary", none)).toMatchObject({ total_clicks: 0, unique_visitors: 0, total_links: 0, active_links: 0 });
    expect(await report("geo", none)).toEqual([]);
    expect(hourlyClicks(await report("hourly", none))).toBe(0);
    expect(todayOf(await report("timeseries", none))).toMatchObject({ clicks: 0 });
    expect(await report("summary", `tag=promo&link_id=${ids.a}`)).toMatchObject({ total_clicks: 2 });
  });
});

describe("a tag on very many links", () => {
  test("more links than a statement takes parameters (65,535): the summary still counts them", async () => {
    const { accountId, key: bigKey } = await t.createAccount({ tier: "scale" });
    const n = 66_000;
    await t.runtime.deps.pg.query(sql`
      insert into links (account_id, short_code, original_url, tags)
      select ${accountId}, 'many' || g, 'https://example.com/' || g, array['many']
      from generate_series(1, ${n}) g`);
    const res = await get(t, bigKey, "/analytics/summary?tag=many");
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
    expect(res.body.data.analytics).toMatchObject({ total_clicks: 0, total_links: n });
  }, 120_000);
});

describe("what is not the account's is 404", () => {
  const PATHS = ["summary", "timeseries", "geo", "devices", "referrers", "hourly"];
  test.each([
    ["another account's link", () => `link_id=${otherLinkId}`, "Link"],
    ["an unknown link", () => `link_id=${crypto.randomUUID()}`, "Link"],
    ["another account's tag", () => "tag=secret", "Tag"],
    ["another account's campaign", () => `campaign_id=${otherCampaignId}`, "Campaign"],
  ])("%s", async (_name, qs, what) => {
    for (const path of PATHS) {
      const res = await get(t, key, `/analytics/${path}?${qs()}`);
      expect({ path, status: res.status, code: res.body.error?.code, message: res.body.error?.message }).toEqual({
        path,
        status: 404,
        code: "NOT_FOUND",
        message: `${what} not found`,
      });
    }
  });

  test("the owner sees its own link", async () => {
    const res = await t.call(`${P}/analytics/summary?link_id=${otherLinkId}`, { key: otherKey });
    expect(res.status).toBe(200);
  });
});

describe("domain", () => {
  test("domain and its former name domain_name filter alike; two different domains are refused", async () => {
    expect(await report("summary", "domain=Go.Example.com")).toMatchObject({ total_clicks: 0 });
    expect(await report("summary", "domain_name=go.example.com&domain=GO.example.com:443")).toMatchObject({ total_clicks: 0 });
    const res = await get(t, key, "/analytics/summary?domain=go.example.com&domain_name=other.example.com");
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(["query.domain"]);
  });
});

describe("GET /analytics/links (the links list's clicks column)", () => {
  test("each link's people's clicks in the last 7 days, one number per day, in the order asked", async () => {
    const res = await get(t, key, `/analytics/links?link_ids=${ids.c},${ids.a},${ids.b}`);
    expect(res.status).toBe(200);
    const rows = res.body.data.analytics;
    expect(rows.map((r: { link_id: string }) => r.link_id)).toEqual([ids.c, ids.a, ids.b]);
    expect(rows.map((r: { clicks: number }) => r.clicks)).toEqual([1, 2, 1]);
    for (const r of rows) expect(r.daily).toEqual([0, 0, 0, 0, 0, 0, r.clicks]);
    const all = await get(t, key, `/analytics/links?link_ids=${ids.a}&bot_filter=all&days=2`);
    expect(all.body.data.analytics).toEqual([{ link_id: ids.a, clicks: 3, daily: [0, 3] }]);
  });

  test("another account's link is 404; a bad list or range is 400 naming the field", async () => {
    expect((await get(t, key, `/analytics/links?link_ids=${ids.a},${otherLinkId}`)).status).toBe(404);
    for (const [qs, field] of [
      ["link_ids=nope", "query.link_ids"],
      [`link_ids=${"x".repeat(36)}`, "query.link_ids"],
      [`link_ids=${ids.a}&days=91`, "query.days"],
    ]) {
      const res = await get(t, key, `/analytics/links?${qs}`);
      expect({ qs, status: res.status, fields: res.body.error?.details?.fields?.map((f: { field: string }) => f.field) }).toEqual({
        qs,
        status: 400,
        fields: [field],
      });
    }
  });
});

describe("GET /links?sort_by=clicks_7d (the links list's clicks column)", () => {
  test("orders the filtered links by people's clicks of the last 7 days across pages; ties newest first", async () => {
    const list = async (qs: string) => (await t.call(`${P}/links?${qs}`, { key })).body;
    const desc = await list("sort_by=clicks_7d");
    expect(desc.data.map((l: { id: string }) => l.id)).toEqual([ids.a, ids.c, ids.b]);
    expect(desc.meta.total).toBe(3);
    const asc = await list("sort_by=clicks_7d&sort_order=asc");
    expect(asc.data.map((l: { id: string }) => l.id)).toEqual([ids.c, ids.b, ids.a]);
    const second = await list("sort_by=clicks_7d&per_page=1&page=2");
    expect(second.data.map((l: { id: string }) => l.id)).toEqual([ids.c]);
    const tagged = await list("sort_by=clicks_7d&tags=promo");
    expect(tagged.data.map((l: { id: string }) => l.id)).toEqual([ids.a]);
  });
});
