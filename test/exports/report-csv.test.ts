// Every click, journey and conversion report as CSV (docs/exports.md "Reports as CSV"): chosen by
// format=csv or Accept: text/csv, the same parameters, the header the OpenAPI document lists, the same
// numbers as the JSON answer, RFC 4180 quoting and formula cells neutralised; errors stay JSON.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { createTestApp, type TestApp } from "../helpers/app";
import { createLink, P, rawClick, spoolClicks } from "../analytics/helpers";
import { postEvents } from "../journey/helpers";

let t: TestApp;
let key: string;
let link: { id: string; short_code: string };
let doc: any;
beforeAll(async () => {
  t = await createTestApp();
  let accountId: string;
  ({ key, accountId } = await t.createAccount());
  link = await createLink(t, key);
  const now = Date.now();
  await spoolClicks(t, [
    rawClick({ account_id: accountId, link_id: link.id, ts: now - 60_000, referrer: "https://a.example/x" }),
    rawClick({ account_id: accountId, link_id: link.id, ts: now - 30_000, referrer: "https://b.example/" }),
  ]);
  const events = [
    {
      link_id: link.id,
      visitor_id: "v1",
      session_id: "s1",
      event_type: "page_view",
      page_url: "https://shop.example/",
      page_title: '=HYPERLINK("x")',
    },
    {
      link_id: link.id,
      visitor_id: "v1",
      session_id: "s1",
      event_type: "custom",
      event_name: '+cmd, "quoted"\nline',
      page_url: "https://shop.example/a",
    },
    {
      link_id: link.id,
      visitor_id: "v1",
      session_id: "s1",
      event_type: "conversion",
      conversion_name: "buy",
      revenue_cents: 1250,
      currency: "EUR",
      page_url: "https://shop.example/b",
    },
  ];
  expect((await postEvents(t, key, events)).status).toBe(202);
  await t.flush();
  doc = (await t.call(`${P}/docs/json`)).body;
}, 60_000);
afterAll(() => t.close());

const REPORTS = [
  "/analytics/summary?days=7",
  "/analytics/summary?days=7&group_by=source",
  "/analytics/timeseries?days=3",
  "/analytics/timeseries?days=3&group_by=source",
  "/analytics/geo",
  "/analytics/devices",
  "/analytics/referrers",
  "/analytics/hourly",
  "/analytics/links?link_ids={link}",
  "/links/{link}/stats",
  "/journey/links/{link}/summary",
  "/journey/links/{link}/sessions",
  "/journey/links/{link}/events",
  "/journey/links/{link}/funnel?steps=page_view,custom,conversion",
  "/conversions/summary",
  "/conversions/timeseries?interval=day&period=7d",
  "/conversions/breakdown?dimension=name",
  "/conversions/time-to-convert",
  "/conversions/attribution?model=linear",
];

const path = (p: string) => p.replaceAll("{link}", link.id);
/** The documented columns of a route: the text/csv description lists them in order. */
function documentedColumns(p: string): string[] {
  const template = p.split("?")[0].replace("{link}", "{id}").replace("/journey/links/{id}", "/journey/links/{link_id}");
  const media = doc.paths[template].get.responses["200"].content["text/csv"];
  return [...String(media.schema.description).matchAll(/`([a-z_]+)` \(/g)].map((m) => m[1]);
}
const csvOf = async (p: string, init: { accept?: string } = {}) => {
  const res = await t.request(`${P}${path(p)}`, { key, headers: init.accept ? { accept: init.accept } : {} });
  return { res, text: await res.text() };
};

describe("reports as CSV", () => {
  test("every report: format=csv and Accept: text/csv answer the documented header, one line per row, CRLF", async () => {
    for (const p of REPORTS) {
      const sep = p.includes("?") ? "&" : "?";
      const byParam = await csvOf(`${p}${sep}format=csv`);
      expect(byParam.res.status, p).toBe(200);
      expect(byParam.res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(byParam.res.headers.get("content-disposition")).toMatch(/^attachment; filename="[a-z-]+\.csv"$/);
      expect(byParam.res.headers.get("x-request-id")).toBeTruthy();
      const rows: string[][] = parse(byParam.text);
      expect(rows[0], p).toEqual(documentedColumns(p));
      expect(byParam.text.endsWith("\r\n")).toBe(true);
      const byAccept = await csvOf(p, { accept: "text/csv" });
      expect(byAccept.res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(parse(byAccept.text)).toEqual(rows);
    }
  });

  test("the numbers are the JSON answer's", async () => {
    const json = (await t.call(`${P}/analytics/referrers`, { key })).body.data.analytics;
    const csv = parse((await csvOf("/analytics/referrers?format=csv")).text, { columns: true }) as any[];
    expect(csv).toEqual(
      json.map((r: any) => ({ referrer: r.referrer, clicks: String(r.clicks), unique_visitors: String(r.unique_visitors) })),
    );
    expect(json.length).toBe(2);
    const summary = parse((await csvOf("/analytics/summary?days=7&format=csv")).text, { columns: true }) as any[];
    expect(summary[0].total_clicks).toBe("2");
    expect(summary[0].group_by).toBe("");
    const grouped = parse((await csvOf("/analytics/summary?days=7&group_by=source&format=csv")).text, { columns: true }) as any[];
    expect(grouped.slice(1)).toEqual([expect.objectContaining({ group_by: "source", group_value: "link", total_clicks: "2" })]);
    const conv = parse((await csvOf("/conversions/summary?format=csv")).text, { columns: true }) as any[];
    expect(conv).toEqual([expect.objectContaining({ total_conversions: "1", total_revenue: "12.5" })]);
  });

  test("quotes, commas and newlines round-trip; cells a spreadsheet would run start with an apostrophe", async () => {
    const events = parse((await csvOf("/journey/links/{link}/events?format=csv")).text, { columns: true }) as any[];
    const custom = events.find((e: any) => e.event_type === "custom");
    expect(custom.event_name).toBe('\'+cmd, "quoted"\nline');
    expect(events.find((e: any) => e.event_type === "page_view").page_title).toBe('\'=HYPERLINK("x")');
    expect(JSON.parse(custom.properties)).toEqual({});
  });

  test("JSON stays the default; format=json wins over Accept; a wrong format is a 400 naming it, in JSON", async () => {
    expect((await t.call(`${P}/analytics/geo`, { key })).body.success).toBe(true);
    expect((await t.call(`${P}/analytics/geo`, { key, headers: { accept: "*/*" } })).body.success).toBe(true);
    const forced = await t.call(`${P}/analytics/geo?format=json`, { key, headers: { accept: "text/csv" } });
    expect(forced.body.success).toBe(true);
    const bad = await t.call(`${P}/analytics/geo?format=xml`, { key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0].field).toBe("query.format");
    const unknown = await t.call(`${P}/analytics/geo?format=csv&nope=1`, { key });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body.error)).toContain("nope");
    const other = await t.call(`${P}/journey/links/${crypto.randomUUID()}/summary?format=csv`, { key });
    expect(other.status).toBe(404);
    expect(other.headers.get("content-type")).toContain("application/json");
  });
});
