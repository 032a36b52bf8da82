// What a deleted link means in every report (docs/api.md "Deleted links in reports"), in the trash and
// once purged: its own reports answer 404, the tag, campaign and domain_id scopes leave it out, and the
// account's totals (and clicks through its host) keep what it had. Restoring it brings its reports back.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";
import { domains } from "../../server/storage/postgres/schema";
import { purgeDeletedLinks } from "../../server/links/service";
import { P, rawClick, spoolClicks } from "../analytics/helpers";
import { postEvents } from "../journey/helpers";

let t: TestApp;
let acc: { accountId: string; key: string };
let host: string;
let domainId: string;
let campaignId: string;
const ids = { kept: "", gone: "" };
// Each link's people clicks and conversions, sent while both were live.
const CLICKS = { kept: 2, gone: 3 };
const CONVERSIONS = { kept: 1, gone: 1 };

const get = (path: string) => t.call(`${P}${path}`, { key: acc.key });

beforeAll(async () => {
  t = await createTestApp({}, {}, { jobs: false });
  acc = await t.createAccount({ tier: "scale" });
  host = `go-${crypto.randomUUID().slice(0, 8)}.example`;
  [{ id: domainId }] = await t.runtime.deps.pg.db
    .insert(domains)
    .values({ accountId: acc.accountId, name: host, verificationToken: "x", verifiedAt: new Date() })
    .returning();
  campaignId = (await t.call(`${P}/campaigns`, { method: "POST", key: acc.key, json: { name: "spring" } })).body.data.id;
  for (const name of ["kept", "gone"] as const) {
    const tags = name === "gone" ? ["launch", "solo"] : ["launch"];
    const res = await t.call(`${P}/links`, {
      method: "POST",
      key: acc.key,
      json: { url: `https://example.com/${name}`, tags, campaign_id: campaignId, domain_id: domainId },
    });
    expect(res.status).toBe(201);
    ids[name] = res.body.data.id;
  }
  await spoolClicks(
    t,
    (["kept", "gone"] as const).flatMap((name) =>
      Array.from({ length: CLICKS[name] }, (_, i) =>
        rawClick({ account_id: acc.accountId, link_id: ids[name], domain: host, ip: `8.8.${CLICKS[name]}.${i + 1}` }),
      ),
    ),
  );
  const events = (["kept", "gone"] as const).flatMap((name) => [
    { link_id: ids[name], visitor_id: `v-${name}`, event_type: "page_view", page_url: "https://example.com/" },
    { link_id: ids[name], visitor_id: `v-${name}`, event_type: "conversion", page_url: "https://example.com/", revenue_cents: 500 },
  ]);
  expect((await postEvents(t, acc.key, events)).status).toBe(202);
  await t.flush();
  expect((await t.call(`${P}/links/${ids.gone}`, { method: "DELETE", key: acc.key })).status).toBe(200);
}, 120_000);
afterAll(() => t.close());

const ALL_CLICKS = CLICKS.kept + CLICKS.gone;
const ALL_CONVERSIONS = CONVERSIONS.kept + CONVERSIONS.gone;

/** Every report, with what it answers while `gone` is deleted. */
const CASES: { report: string; path: () => string; status: number; check?: (data: any) => void }[] = [
  // The account's totals keep the deleted link's clicks and conversions; link counts are of live links.
  {
    report: "click summary, the whole account",
    path: () => "/analytics/summary",
    status: 200,
    check: (d) => expect(d).toMatchObject({ total_clicks: ALL_CLICKS, total_links: 1, total_links_count: 1 }),
  },
  {
    report: "click timeseries, the whole account",
    path: () => "/analytics/timeseries?days=1",
    status: 200,
    check: (d) => expect(d[0].clicks).toBe(ALL_CLICKS),
  },
  {
    report: "click summary, domain (the host clicks came through)",
    path: () => `/analytics/summary?domain=${host}`,
    status: 200,
    check: (d) => expect(d).toMatchObject({ total_clicks: ALL_CLICKS, total_links: 1 }),
  },
  {
    report: "conversion summary, the whole account",
    path: () => "/conversions/summary",
    status: 200,
    check: (d) => expect(d.total_conversions).toBe(ALL_CONVERSIONS),
  },
  // Scopes that select links by what they are now: the live links only.
  {
    report: "click summary, tag",
    path: () => "/analytics/summary?tag=launch",
    status: 200,
    check: (d) => expect(d.total_clicks).toBe(CLICKS.kept),
  },
  { report: "click summary, a tag only the deleted link carries", path: () => "/analytics/summary?tag=solo", status: 404 },
  {
    report: "click summary, campaign",
    path: () => `/analytics/summary?campaign_id=${campaignId}`,
    status: 200,
    check: (d) => expect(d).toMatchObject({ total_clicks: CLICKS.kept, total_links: 1 }),
  },
  {
    report: "conversion summary, domain_id",
    path: () => `/conversions/summary?domain_id=${domainId}`,
    status: 200,
    check: (d) => expect(d.total_conversions).toBe(CONVERSIONS.kept),
  },
  // The deleted link's own reports: 404, as for an unknown link.
  ...["summary", "timeseries", "hourly", "geo", "devices", "referrers"].map((r) => ({
    report: `click ${r}, link_id`,
    path: () => `/analytics/${r}?link_id=${ids.gone}`,
    status: 404,
  })),
  { report: "clicks per link", path: () => `/analytics/links?link_ids=${ids.kept},${ids.gone}`, status: 404 },
  { report: "link stats", path: () => `/links/${ids.gone}/stats`, status: 404 },
  ...["summary", "sessions", "events", "funnel?steps=page_view,conversion", "paths?start=page_view", "retention"].map((r) => ({
    report: `journey ${r.split("?")[0]}`,
    path: () => `/journey/links/${ids.gone}/${r}`,
    status: 404,
  })),
  ...["summary", "timeseries", "breakdown?dimension=device&", "time-to-convert"].map((r) => ({
    report: `conversion ${r.split("?")[0]}, link_id`,
    path: () => `/conversions/${r}${r.includes("?") ? "" : "?"}link_id=${ids.gone}`,
    status: 404,
  })),
  {
    report: "conversion summary, link_id and domain_id",
    path: () => `/conversions/summary?link_id=${ids.gone}&domain_id=${domainId}`,
    status: 404,
  },
];

async function expectAnswers() {
  for (const c of CASES) {
    const res = await get(c.path());
    expect({ report: c.report, status: res.status }).toEqual({ report: c.report, status: c.status });
    if (c.status === 404) expect(res.body.error.code).toBe("NOT_FOUND");
    // The click reports answer { analytics, usage }; the others their object itself.
    c.check?.(res.body.data.analytics ?? res.body.data);
  }
}

describe("a deleted link", () => {
  test("in the trash: every report answers as docs/api.md says", expectAnswers, 60_000);

  test("the live link's own reports answer (the cases above can tell the two apart)", async () => {
    expect((await get(`/analytics/summary?link_id=${ids.kept}`)).body.data.analytics.total_clicks).toBe(CLICKS.kept);
    expect((await get(`/links/${ids.kept}/stats`)).body.data.human_clicks).toBe(CLICKS.kept);
    expect((await get(`/journey/links/${ids.kept}/summary`)).body.data.total_visitors).toBe(1);
    expect((await get(`/conversions/summary?link_id=${ids.kept}`)).body.data.total_conversions).toBe(CONVERSIONS.kept);
  });

  test("restored: its reports come back whole, and the scopes cover it again", async () => {
    expect((await t.call(`${P}/links/${ids.gone}/restore`, { method: "POST", key: acc.key })).status).toBe(200);
    expect((await get(`/analytics/summary?link_id=${ids.gone}`)).body.data.analytics.total_clicks).toBe(CLICKS.gone);
    expect((await get(`/journey/links/${ids.gone}/summary`)).body.data.total_visitors).toBe(1);
    expect((await get(`/analytics/summary?tag=launch`)).body.data.analytics.total_clicks).toBe(ALL_CLICKS);
    expect((await get(`/conversions/summary?domain_id=${domainId}`)).body.data.total_conversions).toBe(ALL_CONVERSIONS);
    expect((await t.call(`${P}/links/${ids.gone}`, { method: "DELETE", key: acc.key })).status).toBe(200);
  });

  test("purged: every report answers as in the trash", async () => {
    await t.runtime.deps.pg.query(sql`update links set deleted_at = now() - interval '8 days' where id = ${ids.gone}`);
    expect(await purgeDeletedLinks(t.runtime.deps.pg)).toBe(1);
    await expectAnswers();
  }, 60_000);
});
