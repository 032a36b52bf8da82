// POST /imports with Plausible's full export (a zip of imported_*.csv files) into one link: the
// journey and conversion summaries show the file's figures beside (never inside) our own, for the days
// before the link's first own event only; a re-import creates nothing twice; a bad zip, a missing
// file, a bad row or a zip bomb is a 400 that stores nothing; another account's link is 404.
import { indexedFigures } from "../../server/journey/summary-index";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { createTestApp, type TestApp } from "../helpers/app";

let t: TestApp;
const P = "/public-api/v1";
const fixture = (name: string) => readFileSync(join(import.meta.dir, "..", "fixtures", "imports", name));
const EXPORT = "plausible_shop_example_20250304.zip";
/** Data rows in the fixture's ten CSV files (3 + 4 + 5 + 3 + 3 + 4 + 3 + 3 + 3 + 3). */
const ROWS = 34;

beforeAll(async () => {
  t = await createTestApp({}, {}, { jobs: false });
});
afterAll(() => t.close());

const upload = (key: string, body: BodyInit, query: string) =>
  t.call(`${P}/imports${query}`, { method: "POST", key, body, headers: { "content-type": "application/zip" } });

async function newLink(key: string) {
  const res = await t.call(`${P}/links`, { method: "POST", key, json: { url: "https://shop.example/" } });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

/** Imported rows stored for the account, as the reports read them (FINAL) and as parts hold them. */
async function storedRows(accountId: string) {
  const ch = t.runtime.deps.ch;
  const [r] = await ch.query<{ n: string }>(`SELECT count() AS n FROM ${ch.table("imported_daily")} FINAL WHERE account_id = {a:UUID}`, {
    a: accountId,
  });
  return Number(r.n);
}

/** A report's CSV answer as rows by column name. */
async function csvRows(key: string, path: string): Promise<Record<string, string>[]> {
  const res = await t.request(`${P}${path}${path.includes("?") ? "&" : "?"}format=csv`, { key });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  return parse(await res.text(), { columns: true });
}
const CONVERSION_COLUMNS = ["total_conversions", "unique_converters", "total_revenue", "average_order_value", "conversion_rate"];
/** A conversion summary CSV row: the given cells, every other column empty. */
const row = (cells: Record<string, string>) => ({
  ...Object.fromEntries([...CONVERSION_COLUMNS, "imported_from", "goal", "date", "from", "to", "own_data_from"].map((c) => [c, ""])),
  ...cells,
});

const summary = async (key: string, link: string) => (await t.call(`${P}/journey/links/${link}/summary`, { key })).body.data;
const conversions = async (key: string, link: string) => (await t.call(`${P}/conversions/summary?link_id=${link}`, { key })).body.data;

describe("POST /imports: Plausible", () => {
  test("the export becomes the link's imported days, shown beside the summaries; a re-import creates nothing twice", async () => {
    const { key, accountId } = await t.createAccount();
    const link = await newLink(key);
    const res = await upload(key, fixture(EXPORT), `?link_id=${link}`);
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ source: "plausible", status: "completed", total: ROWS, processed: ROWS, created: 0, failed: 0 });
    expect(await storedRows(accountId)).toBe(ROWS);

    const s = await summary(key, link);
    // Our own counts stay ours: the link has no event of its own.
    expect(s).toMatchObject({ total_visitors: 0, total_sessions: 0, total_events: 0, top_pages: [], top_events: [] });
    // imported_visitors: 12 + 20 + 7 visitors, 14 + 22 + 8 visits, 30 + 41 + 9 pageviews, 4 + 6 + 3 bounces, 700 + 1100 + 240 s.
    expect(s.imported).toEqual({
      source: "plausible",
      from: "2025-03-01",
      to: "2025-03-03",
      own_data_from: null,
      visitors: 39,
      visits: 44,
      pageviews: 80,
      bounce_rate: 29.55,
      avg_visit_duration_seconds: 46.36,
      // imported_pages: "/" 18 + 25 + 9, "/pricing" 12 + 16 pageviews; imported_custom_events: Signup 3 + 6 + 1.
      top_pages: [
        { url: "/", count: 52 },
        { url: "/pricing", count: 28 },
      ],
      top_events: [
        { name: "Signup", count: 10 },
        { name: "Outbound Link: Click", count: 2 },
      ],
      // The other files by visitors summed over the days: imported_sources Google 8 + 20, Direct / None 7,
      // Newsletter 4; entry pages "/" 12 + 20 + 7; exit pages /pricing 12 + 20, "/" 7; locations DE 12 + 7,
      // FR 20; devices, browsers and systems split the days 20 against 12 + 7.
      sources: [
        { value: "Google", visitors: 28 },
        { value: "Direct / None", visitors: 7 },
        { value: "Newsletter", visitors: 4 },
      ],
      entry_pages: [{ value: "/", visitors: 39 }],
      exit_pages: [
        { value: "/pricing", visitors: 32 },
        { value: "/", visitors: 7 },
      ],
      countries: [
        { value: "FR", visitors: 20 },
        { value: "DE", visitors: 19 },
      ],
      devices: [
        { value: "Mobile", visitors: 20 },
        { value: "Desktop", visitors: 19 },
      ],
      browsers: [
        { value: "Chrome", visitors: 20 },
        { value: "Firefox", visitors: 19 },
      ],
      operating_systems: [
        { value: "Android", visitors: 20 },
        { value: "Linux", visitors: 19 },
      ],
      daily: [
        { date: "2025-03-01", visitors: 12, visits: 14, pageviews: 30 },
        { date: "2025-03-02", visitors: 20, visits: 22, pageviews: 41 },
        { date: "2025-03-03", visitors: 7, visits: 8, pageviews: 9 },
      ],
    });
    const c = await conversions(key, link);
    expect(c).toMatchObject({ total_conversions: 0, unique_converters: 0 });
    expect(c.imported).toEqual({
      source: "plausible",
      from: "2025-03-01",
      to: "2025-03-03",
      own_data_from: null,
      conversions: 12,
      converters: 11,
      by_goal: [
        { name: "Signup", conversions: 10 },
        { name: "Outbound Link: Click", conversions: 2 },
      ],
      // imported_custom_events per day: 3, then 6 + 2, then 1.
      daily: [
        { date: "2025-03-01", conversions: 3 },
        { date: "2025-03-02", conversions: 8 },
        { date: "2025-03-03", conversions: 1 },
      ],
    });

    // The CSV answers carry the same imported figures, on rows marked with the product, after our own.
    const journeyCsv = await csvRows(key, `/journey/links/${link}/summary`);
    const own = journeyCsv.filter((r) => r.imported_from === "");
    expect(own.map((r) => [r.metric, r.value])).toEqual([
      ["total_visitors", "0"],
      ["total_sessions", "0"],
      ["total_events", "0"],
      ["avg_session_duration_seconds", "0"],
    ]);
    const imp = journeyCsv.slice(own.length);
    expect(imp.every((r) => r.imported_from === "plausible")).toBe(true);
    const cellOf = (metric: string, name = "") => imp.find((r) => r.metric === metric && r.name === name)?.value;
    expect([cellOf("from"), cellOf("to"), cellOf("own_data_from")]).toEqual(["2025-03-01", "2025-03-03", ""]);
    expect([cellOf("visitors"), cellOf("visits"), cellOf("pageviews"), cellOf("bounce_rate")]).toEqual(["39", "44", "80", "29.55"]);
    expect([cellOf("top_page", "/"), cellOf("top_event", "Signup"), cellOf("source", "Google"), cellOf("country", "DE")]).toEqual([
      "52",
      "10",
      "28",
      "19",
    ]);
    expect([cellOf("exit_page", "/pricing"), cellOf("operating_system", "Android"), cellOf("daily_pageviews", "2025-03-02")]).toEqual([
      "32",
      "20",
      "41",
    ]);
    // One row per imported figure of the JSON: 8 numbers, 2 + 2 tops, 3 + 1 + 2 + 2 + 2 + 2 + 2 breakdown values, 3 days × 3.
    expect(imp.length).toBe(8 + 4 + 14 + 9);
    const convCsv = await csvRows(key, `/conversions/summary?link_id=${link}`);
    expect(convCsv[0]).toMatchObject({ imported_from: "", total_conversions: "0", goal: "", date: "" });
    expect(convCsv.slice(1)).toEqual([
      row({ imported_from: "plausible", total_conversions: "12", unique_converters: "11", from: "2025-03-01", to: "2025-03-03" }),
      row({ imported_from: "plausible", goal: "Signup", total_conversions: "10" }),
      row({ imported_from: "plausible", goal: "Outbound Link: Click", total_conversions: "2" }),
      row({ imported_from: "plausible", date: "2025-03-01", total_conversions: "3" }),
      row({ imported_from: "plausible", date: "2025-03-02", total_conversions: "8" }),
      row({ imported_from: "plausible", date: "2025-03-03", total_conversions: "1" }),
    ]);

    // The same file again: every row replaces its twin, in what the reports read and, once merged, on disk.
    const again = await upload(key, fixture(EXPORT), `?link_id=${link}`);
    expect(again.status).toBe(202);
    expect(await storedRows(accountId)).toBe(ROWS);
    expect((await summary(key, link)).imported).toEqual(s.imported);
    const ch = t.runtime.deps.ch;
    await ch.command(`OPTIMIZE TABLE ${ch.table("imported_daily")} FINAL`);
    const [raw] = await ch.query<{ n: string }>(`SELECT count() AS n FROM ${ch.table("imported_daily")} WHERE account_id = {a:UUID}`, {
      a: accountId,
    });
    expect(Number(raw.n)).toBe(ROWS);
    // Another link of the account shows none of it.
    const other = await newLink(key);
    expect((await summary(key, other)).imported).toBeNull();
    // The same once the journey job has loaded the links' summary index (the summary then reads the
    // imported days' count in its own statement).
    await t.runtime.jobs.journey.runOnce();
    expect(await indexedFigures(ch, { accountId, scope: link }, Date.now() - 86_400_000, { converters: false })).not.toBeNull();
    expect((await summary(key, link)).imported).toEqual(s.imported);
    expect((await summary(key, other)).imported).toBeNull();
  });

  test("only the days before the link's first own event are shown", async () => {
    const { key } = await t.createAccount();
    const link = await newLink(key);
    expect((await upload(key, fixture(EXPORT), `?link_id=${link}`)).status).toBe(202);
    const own = await t.call(`${P}/journey/events`, {
      method: "POST",
      key,
      json: {
        events: [
          {
            link_id: link,
            visitor_id: "v1",
            event_type: "page_view",
            page_url: "https://shop.example/",
            timestamp: "2025-03-02T10:00:00Z",
          },
          {
            link_id: link,
            visitor_id: "v1",
            event_type: "conversion",
            conversion_name: "Signup",
            page_url: "https://shop.example/",
            timestamp: "2025-03-02T10:05:00Z",
          },
        ],
      },
    });
    expect(own.status).toBe(202);
    await t.flush();
    const s = await summary(key, link);
    expect(s.imported).toMatchObject({
      from: "2025-03-01",
      to: "2025-03-01",
      own_data_from: "2025-03-02",
      visitors: 12,
      visits: 14,
      pageviews: 30,
      top_pages: [
        { url: "/", count: 18 },
        { url: "/pricing", count: 12 },
      ],
      top_events: [{ name: "Signup", count: 3 }],
      sources: [
        { value: "Google", visitors: 8 },
        { value: "Newsletter", visitors: 4 },
      ],
      countries: [{ value: "DE", visitors: 12 }],
      devices: [{ value: "Desktop", visitors: 12 }],
      exit_pages: [{ value: "/pricing", visitors: 12 }],
      daily: [{ date: "2025-03-01", visitors: 12, visits: 14, pageviews: 30 }],
    });
    const csv = await csvRows(key, `/journey/links/${link}/summary`);
    expect(csv.filter((r) => r.imported_from === "plausible" && r.metric === "country")).toEqual([
      { metric: "country", name: "DE", value: "12", imported_from: "plausible" },
    ]);
    expect(csv.find((r) => r.metric === "own_data_from")?.value).toBe("2025-03-02");
    expect((await conversions(key, link)).imported).toMatchObject({
      from: "2025-03-01",
      to: "2025-03-01",
      conversions: 3,
      converters: 3,
      by_goal: [{ name: "Signup", conversions: 3 }],
      daily: [{ date: "2025-03-01", conversions: 3 }],
    });
  });

  test("imported text in a CSV cell is quoted, and a cell a spreadsheet would run starts with an apostrophe", async () => {
    const { key } = await t.createAccount();
    const link = await newLink(key);
    expect((await upload(key, fixture("plausible-formula.zip"), `?link_id=${link}`)).status).toBe(202);
    expect((await summary(key, link)).imported.sources).toEqual([{ value: '=HYPERLINK("x")', visitors: 5 }]);
    const csv = await csvRows(key, `/journey/links/${link}/summary`);
    expect(csv.find((r) => r.metric === "source")).toEqual({
      metric: "source",
      name: '\'=HYPERLINK("x")',
      value: "5",
      imported_from: "plausible",
    });
    expect(csv.find((r) => r.metric === "top_event")?.name).toBe('\'+cmd, "quoted"');
    const conv = await csvRows(key, `/conversions/summary?link_id=${link}`);
    expect(conv.find((r) => r.goal !== "")).toMatchObject({ goal: '\'+cmd, "quoted"', total_conversions: "2" });
  });

  test("a file we cannot take is a 400 naming the problem, and nothing is stored", async () => {
    const { key, accountId } = await t.createAccount();
    const link = await newLink(key);
    const q = `?link_id=${link}`;
    const cases: [BodyInit, string, string | RegExp][] = [
      [fixture(EXPORT).subarray(0, 1000), q, /not a zip archive we can read/],
      [fixture("plausible-no-visitors.zip"), q, /no imported_visitors_<from>_<to>\.csv/],
      [fixture("plausible-bad-row.zip"), q, "imported_custom_events_20250301_20250303.csv, row 4: events: must be a number"],
      [fixture("plausible-bomb.zip"), q, /more than 1024 MB once unzipped/],
      [fixture("generic.csv"), `${q}&source=plausible`, /not a zip archive: a Plausible export/],
    ];
    for (const [body, query, message] of cases) {
      const res = await upload(key, body, query);
      expect(res.status).toBe(400);
      expect(res.body.error.details.fields[0].field).toBe("file");
      expect(res.body.error.message).toMatch(message);
    }
    const noLink = await upload(key, fixture(EXPORT), "");
    expect(noLink.status).toBe(400);
    expect(noLink.body.error.details.fields[0].field).toBe("query.link_id");
    const bomb = await upload(key, fixture("plausible-bomb.zip"), q);
    expect(bomb.body.error.details.max_uncompressed_bytes).toBe(1024 * 1024 * 1024);

    expect(await storedRows(accountId)).toBe(0);
    expect((await t.call(`${P}/imports`, { key })).body.data).toEqual([]);
    expect((await summary(key, link)).imported).toBeNull();
  });

  test("another account's link is 404 and gets nothing", async () => {
    const owner = await t.createAccount();
    const link = await newLink(owner.key);
    const other = await t.createAccount();
    const res = await upload(other.key, fixture(EXPORT), `?link_id=${link}`);
    expect(res.status).toBe(404);
    // The 404 names the parameter at fault, as a 400 would.
    expect(res.body.error).toMatchObject({ code: "NOT_FOUND", details: { field: "query.link_id" } });
    expect(await storedRows(owner.accountId)).toBe(0);
    expect(await storedRows(other.accountId)).toBe(0);
    expect((await summary(owner.key, link)).imported).toBeNull();
  });

  test("another account's reports of an imported link are 404, in JSON and CSV alike", async () => {
    const owner = await t.createAccount();
    const link = await newLink(owner.key);
    expect((await upload(owner.key, fixture(EXPORT), `?link_id=${link}`)).status).toBe(202);
    const other = await t.createAccount();
    for (const path of [`/journey/links/${link}/summary`, `/conversions/summary?link_id=${link}`]) {
      for (const format of ["json", "csv"]) {
        const res = await t.call(`${P}${path}${path.includes("?") ? "&" : "?"}format=${format}`, { key: other.key });
        expect(res.status, `${path} ${format}`).toBe(404);
        expect(res.headers.get("content-type")).toContain("application/json");
        expect(JSON.stringify(res.body)).not.toContain("plausible");
      }
    }
    // The owner still sees them.
    expect((await summary(owner.key, link)).imported.visitors).toBe(39);
  });
});
