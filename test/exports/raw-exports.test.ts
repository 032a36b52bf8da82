// GET /exports/clicks and /exports/journey-events (docs/exports.md "Raw exports"): one account's rows
// of a range as CSV or NDJSON, with the documented columns, filters that 404 on another account's ids,
// formula cells neutralised, gzip, and a cursor that resumes exactly where an answer stopped.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { domains, links } from "../../server/storage/postgres/schema";
import { createTestApp, type TestApp } from "../helpers/app";
import { P, rawClick, spoolClicks, UA } from "../analytics/helpers";
import { postEvents } from "../journey/helpers";

const CLICK_HEADER =
  "click_id,timestamp,link_id,short_code,domain,country_code,region,city,device_type,browser,browser_version,os,os_version,referrer,referrer_url,language,is_bot,bot_kind";

let t: TestApp;
let key: string;
let otherKey: string;
let readOnlyJourneyKey: string;
const ids: Record<string, string> = {};
let campaignId = "";
let otherLinkId = "";
let domainName = "";
const clickIds: string[] = [];
const T0 = Date.now() - 3_600_000;

beforeAll(async () => {
  t = await createTestApp();
  const a = await t.createAccount({ tier: "scale" });
  key = a.key;
  const b = await t.createAccount({ tier: "scale" });
  otherKey = b.key;
  ({ key: readOnlyJourneyKey } = await t.createAccount({ scopes: ["journey:read"] }));
  const db = t.runtime.deps.pg.db;
  campaignId = (await t.call(`${P}/campaigns`, { method: "POST", key, json: { name: "Spring" } })).body.data.id;
  domainName = `go-${crypto.randomUUID().slice(0, 8)}.example`;
  const [{ id: domainId }] = await db
    .insert(domains)
    .values({ accountId: a.accountId, name: domainName, verificationToken: "x" })
    .returning();
  const made = await db
    .insert(links)
    .values([
      // A code that starts with "-" is exported as it is: the importer matches codes exactly.
      { accountId: a.accountId, shortCode: `-x${crypto.randomUUID().slice(0, 8)}`, originalUrl: "https://example.com/a" },
      {
        accountId: a.accountId,
        shortCode: `y${crypto.randomUUID().slice(0, 8)}`,
        originalUrl: "https://example.com/b",
        campaignId,
        domainId,
      },
      { accountId: b.accountId, shortCode: `z${crypto.randomUUID().slice(0, 8)}`, originalUrl: "https://example.com/z" },
    ])
    .returning({ id: links.id, code: links.shortCode });
  Object.assign(ids, { a: made[0].id, b: made[1].id, aCode: made[0].code, bCode: made[1].code });
  otherLinkId = made[2].id;
  const clicks = [
    rawClick({ account_id: a.accountId, link_id: ids.a, ts: T0, referrer: 'https://news.example/=1,"q"', ip: "203.0.113.9" }),
    rawClick({ account_id: a.accountId, link_id: ids.a, ts: T0 + 1, ua: UA.curl, lang: "de-DE" }),
    rawClick({ account_id: a.accountId, link_id: ids.b, ts: T0 + 2, domain: domainName }),
    rawClick({ account_id: a.accountId, link_id: ids.b, ts: T0 + 2, domain: domainName, referrer: '=HYPERLINK("http://evil")' }),
    rawClick({ account_id: a.accountId, link_id: ids.a, ts: T0 + 5, ua: UA.iphone }),
    rawClick({ account_id: b.accountId, link_id: otherLinkId, ts: T0 + 3 }),
  ];
  clickIds.push(...clicks.slice(0, 5).map((c) => c.click_id));
  await spoolClicks(t, clicks);
  const events = [
    { link_id: ids.a, visitor_id: "v1", session_id: "s1", event_type: "page_view", page_url: "https://shop.example/", page_title: "-2+3" },
    {
      link_id: ids.b,
      visitor_id: "v2",
      event_type: "conversion",
      conversion_name: "buy",
      revenue_cents: 990,
      currency: "EUR",
      page_url: "https://shop.example/b",
      properties: { plan: "pro" },
    },
  ];
  expect((await postEvents(t, key, events)).status).toBe(202);
  await t.flush();
}, 60_000);
afterAll(() => t.close());

const exportCsv = async (path: string, k = key, headers: Record<string, string> = {}) => {
  const res = await t.request(`${P}${path}`, { key: k, headers });
  const text = await res.text();
  return { res, text, rows: res.status === 200 ? (parse(text, { columns: true }) as Record<string, string>[]) : [] };
};

describe("GET /exports/clicks", () => {
  test("CSV: the importer's columns, the account's clicks only, oldest first, as stored; nothing of the address", async () => {
    const { res, text, rows } = await exportCsv("/exports/clicks");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="clicks-\d{4}-\d\d-\d\d-\d{4}-\d\d-\d\d\.csv"$/);
    expect(text.split("\r\n")[0]).toBe(CLICK_HEADER);
    expect(text.endsWith("\r\n")).toBe(true);
    expect(rows.map((r) => r.click_id).sort()).toEqual([...clickIds].sort());
    // (timestamp, id) order: the two clicks of the same millisecond by id.
    const order = rows.map((r) => `${r.timestamp} ${r.click_id}`);
    expect(order).toEqual([...order].sort((x, y) => (x.slice(0, 24) === y.slice(0, 24) ? 0 : x < y ? -1 : 1)));
    const first = rows.find((r) => r.click_id === clickIds[0])!;
    expect(first).toMatchObject({
      timestamp: new Date(T0).toISOString(),
      link_id: ids.a,
      short_code: ids.aCode,
      domain: "",
      referrer: "news.example",
      referrer_url: 'https://news.example/=1,"q"',
      is_bot: "false",
      bot_kind: "",
      device_type: "desktop",
      browser: "Chrome",
    });
    expect(rows.find((r) => r.click_id === clickIds[1])).toMatchObject({ is_bot: "true", bot_kind: "automation", language: "de-DE" });
    expect(rows.find((r) => r.click_id === clickIds[2])).toMatchObject({ domain: domainName, short_code: ids.bCode });
    expect(text).not.toContain("203.0.113.9");
    expect(text).not.toContain("visitor");
  });

  test("cells a spreadsheet would run get an apostrophe; NDJSON keeps the value as stored", async () => {
    const { rows } = await exportCsv("/exports/clicks");
    expect(rows.find((r) => r.click_id === clickIds[3])!.referrer_url).toBe('\'=HYPERLINK("http://evil")');
    const res = await t.request(`${P}/exports/clicks?format=ndjson`, { key });
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    const lines = (await res.text())
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.length).toBe(5);
    expect(Object.keys(lines[0])).toEqual(CLICK_HEADER.split(","));
    const evil = lines.find((l) => l.click_id === clickIds[3]);
    expect(evil.referrer_url).toBe('=HYPERLINK("http://evil")');
    expect(lines.find((l) => l.click_id === clickIds[1]).is_bot).toBe(true);
    const byAccept = await t.request(`${P}/exports/clicks`, { key, headers: { accept: "application/x-ndjson" } });
    expect(byAccept.headers.get("content-type")).toBe("application/x-ndjson");
  });

  test("link_id, campaign_id and domain narrow it; another account's link, an unknown campaign or domain is 404", async () => {
    expect((await exportCsv(`/exports/clicks?link_id=${ids.a}`)).rows.map((r) => r.link_id)).toEqual([ids.a, ids.a, ids.a]);
    expect((await exportCsv(`/exports/clicks?campaign_id=${campaignId}`)).rows.length).toBe(2);
    expect((await exportCsv(`/exports/clicks?domain=${domainName.toUpperCase()}`)).rows.length).toBe(2);
    for (const q of [`link_id=${otherLinkId}`, `campaign_id=${crypto.randomUUID()}`, "domain=nope.example"]) {
      const res = await t.call(`${P}/exports/clicks?${q}`, { key });
      expect(res.status, q).toBe(404);
    }
    const other = await exportCsv("/exports/clicks", otherKey);
    expect(other.rows.length).toBe(1);
  });

  test("a range outside the clicks is empty but for the header; a bad range or cursor is a 400 naming it", async () => {
    const empty = await exportCsv("/exports/clicks?start_date=2020-01-01&end_date=2020-01-02");
    expect(empty.res.status).toBe(200);
    expect(empty.text).toBe(`${CLICK_HEADER}\r\n`);
    for (const [q, field] of [
      ["start_date=2026-13-45", "query.start_date"],
      ["start_date=2026-05-02&end_date=2026-05-01", "query.start_date"],
      ["cursor=nope", "query.cursor"],
      ["limit=0", "query.limit"],
      ["format=xlsx", "query.format"],
      ["visitor_hash=1", "query.visitor_hash"],
    ]) {
      const res = await t.call(`${P}/exports/clicks?${q}`, { key });
      expect(res.status, q).toBe(400);
      expect(JSON.stringify(res.body.error), q).toContain(field);
    }
  });

  test("limit stops the answer and says where to go on; the next cursor, or the last row's, resumes exactly", async () => {
    const all = (await exportCsv("/exports/clicks")).rows.map((r) => r.click_id);
    const got: string[] = [];
    let path = "/exports/clicks?limit=2";
    for (let i = 0; i < 5 && path; i++) {
      const page = await exportCsv(path);
      got.push(...page.rows.map((r) => r.click_id));
      const next = page.res.headers.get("x-export-next-cursor");
      if (next) {
        expect(page.rows.length).toBe(2);
        const last = page.rows[1];
        expect(next).toBe(`${last.timestamp},${last.click_id}`);
        expect(page.res.headers.get("link")).toBe(`</public-api/v1/exports/clicks?limit=2&cursor=${encodeURIComponent(next)}>; rel="next"`);
      }
      path = next ? `/exports/clicks?limit=2&cursor=${encodeURIComponent(next)}` : "";
    }
    expect(got).toEqual(all);
    // An interrupted download: the cursor of the last complete row received.
    const full = (await exportCsv("/exports/clicks")).rows;
    const resumed = (await exportCsv(`/exports/clicks?cursor=${full[2].timestamp},${full[2].click_id}`)).rows;
    expect(resumed.map((r) => r.click_id)).toEqual(all.slice(3));
  });

  test("gzip when Accept-Encoding offers it or compress=gzip asks", async () => {
    for (const init of [
      { path: "/exports/clicks", headers: { "accept-encoding": "gzip, deflate" } },
      { path: "/exports/clicks?compress=gzip", headers: {} as Record<string, string> },
    ]) {
      const res = await t.request(`${P}${init.path}`, { key, headers: init.headers });
      expect(res.headers.get("content-encoding")).toBe("gzip");
      const text = new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await res.arrayBuffer())));
      expect(text.split("\r\n")[0]).toBe(CLICK_HEADER);
      expect(parse(text, { columns: true }).length).toBe(5);
    }
    const plain = await t.request(`${P}/exports/clicks`, { key, headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
  });

  test("needs analytics:read", async () => {
    const res = await t.call(`${P}/exports/clicks`, { key: readOnlyJourneyKey });
    expect(res.status).toBe(403);
  });
});

describe("GET /exports/journey-events", () => {
  test("CSV and NDJSON of the account's events, with the documented columns; scope journey:read", async () => {
    const { res, text, rows } = await exportCsv("/exports/journey-events");
    expect(res.status).toBe(200);
    const doc = (await t.call(`${P}/docs/json`)).body;
    const description = doc.paths["/exports/journey-events"].get.responses["200"].content["text/csv"].schema.description;
    const documented = [...String(description).matchAll(/`([a-z_]+)` \(/g)].map((m) => m[1]);
    expect(text.split("\r\n")[0]).toBe(documented.join(","));
    expect(rows.length).toBe(2);
    const view = rows.find((r) => r.event_type === "page_view")!;
    expect(view).toMatchObject({ link_id: ids.a, visitor_id: "v1", session_id: "s1", page_title: "'-2+3", scroll_percent: "" });
    const buy = rows.find((r) => r.event_type === "conversion")!;
    expect(buy).toMatchObject({ revenue_cents: "990", currency: "EUR", conversion_name: "buy" });
    expect(JSON.parse(buy.properties)).toEqual({ plan: "pro" });
    const nd = await t.request(`${P}/exports/journey-events?format=ndjson&domain=${domainName}`, { key: readOnlyJourneyKey });
    expect(nd.status).toBe(404);
    const ndOwn = await t.request(`${P}/exports/journey-events?format=ndjson&domain=${domainName}`, { key });
    const lines = (await ndOwn.text())
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([expect.objectContaining({ link_id: ids.b, revenue_cents: 990, scroll_percent: null })]);
    expect((await t.call(`${P}/exports/journey-events`, { key: otherKey })).status).toBe(200);
    expect((await exportCsv(`/exports/journey-events?link_id=${otherLinkId}`)).res.status).toBe(404);
  });
});
