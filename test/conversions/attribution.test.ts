// Attribution (docs/insights.md "Attribution"): each model's credits checked against credits computed
// here from the events and clicks this test sends, the totals against the conversions summary, before
// and after every table is merged.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { campaigns, links } from "../../server/storage/postgres/schema";
import { insertLink, postEvents } from "../journey/helpers";
import { forceMerges, stopMerges } from "../insights/helpers";

let t: TestApp;
let key: string;
let otherKey: string;
let otherLink: string;
const ids: Record<Name, string> = { A: "", B: "", C: "" };
const campaignIds: Record<string, string> = {};
type Name = "A" | "B" | "C";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = Date.now();
const clickVisitor = crypto.randomUUID(); // came through a tracked redirect: visitor_id is the click id

interface Ev {
  link: Name;
  visitor: string;
  type: "page_view" | "conversion";
  ago: number;
  revenue?: number;
}
const pv = (link: Name, visitor: string, ago: number): Ev => ({ link, visitor, type: "page_view", ago });
const conv = (link: Name, visitor: string, ago: number, revenue = 0): Ev => ({ link, visitor, type: "conversion", ago, revenue });
const EVENTS: Ev[] = [
  // v1 clicked A, then B a week later, converted on B two days after that.
  pv("A", "v1", 10 * DAY),
  pv("B", "v1", 3 * DAY),
  conv("B", "v1", DAY, 5000),
  // The click visitor: clicked A 5 days ago, first event a day later, converted twice on later days.
  pv("A", clickVisitor, 4 * DAY),
  conv("A", clickVisitor, 4 * DAY - HOUR, 1000),
  conv("A", clickVisitor, 2 * DAY, 2000),
  // v3 came through A 40 days ago: outside a 30-day window, inside a 90-day one.
  pv("A", "v3", 40 * DAY),
  conv("A", "v3", 2 * DAY, 700),
  // v4 came through C, A and B on three days, converted on C.
  pv("C", "v4", 20 * DAY),
  pv("A", "v4", 2 * DAY),
  pv("B", "v4", DAY),
  conv("C", "v4", 12 * HOUR, 300),
  // v5: a conversion is its first event (a server-side conversion on B).
  conv("B", "v5", 6 * HOUR, 150),
  // v6 converted on A, then came through B: B is after the conversion.
  pv("A", "v6", 3 * DAY + HOUR),
  conv("A", "v6", 3 * DAY, 400),
  pv("B", "v6", DAY),
  // v7 converted before the period; n1 never converts.
  pv("A", "v7", 50 * DAY),
  conv("A", "v7", 45 * DAY, 9900),
  pv("C", "n1", DAY),
];
const CLICKS = [{ link: "A" as Name, visitor: clickVisitor, ago: 5 * DAY }];

const PERIOD_START = Math.floor((now - 30 * DAY) / HOUR) * HOUR;

type Model = "first" | "last" | "linear";
/** Credits per link id ("" for direct) from what was sent: the reference computation. */
function expected(model: Model, windowDays: number, scopeLinks?: Name[]) {
  const touchAt = new Map<string, number>(); // visitor|link → first arrival
  const arrive = (visitor: string, link: Name, ms: number) => {
    const k = `${visitor}|${link}`;
    touchAt.set(k, Math.min(touchAt.get(k) ?? ms, ms));
  };
  for (const e of EVENTS) arrive(e.visitor, e.link, now - e.ago);
  for (const c of CLICKS) arrive(c.visitor, c.link, now - c.ago);
  const credits = new Map<string, { n: number; cents: number }>();
  const add = (label: string, n: number, cents: number) => {
    const c = credits.get(label) ?? { n: 0, cents: 0 };
    c.n += n;
    c.cents += cents;
    credits.set(label, c);
  };
  for (const e of EVENTS) {
    const at = now - e.ago;
    if (e.type !== "conversion" || at < PERIOD_START || (scopeLinks && !scopeLinks.includes(e.link))) continue;
    const touches = (["A", "B", "C"] as Name[])
      .map((l) => ({ link: ids[l], at: touchAt.get(`${e.visitor}|${l}`) }))
      .filter((x): x is { link: string; at: number } => x.at !== undefined && x.at <= at && x.at >= at - windowDays * DAY)
      .sort((a, b) => a.at - b.at || (a.link < b.link ? -1 : 1));
    const cents = e.revenue ?? 0;
    if (touches.length === 0) add("", 1, cents);
    else if (model === "first") add(touches[0].link, 1, cents);
    else if (model === "last") add(touches.at(-1)!.link, 1, cents);
    else for (const x of touches) add(x.link, 1 / touches.length, cents / touches.length);
  }
  return credits;
}

beforeAll(async () => {
  t = await createTestApp();
  await stopMerges(t);
  const acc = await t.createAccount();
  key = acc.key;
  const db = t.runtime.deps.pg.db;
  for (const name of ["Launch", "Spring"]) {
    const [c] = await db.insert(campaigns).values({ accountId: acc.accountId, name }).returning();
    campaignIds[name] = c.id;
  }
  const link = async (code: string, campaignId: string | null) =>
    (
      await db
        .insert(links)
        .values({ accountId: acc.accountId, shortCode: code, originalUrl: "https://shop.example/", campaignId })
        .returning()
    )[0].id;
  ids.A = await link(`a${crypto.randomUUID().slice(0, 8)}`, campaignIds.Launch);
  ids.B = await link(`b${crypto.randomUUID().slice(0, 8)}`, null);
  ids.C = await link(`c${crypto.randomUUID().slice(0, 8)}`, campaignIds.Spring);
  const wire = EVENTS.map((e) => ({
    link_id: ids[e.link],
    visitor_id: e.visitor,
    event_type: e.type,
    page_url: "https://shop.example/",
    timestamp: new Date(now - e.ago).toISOString(),
    ...(e.type === "conversion" ? { conversion_name: "order", revenue_cents: e.revenue, currency: "USD" } : {}),
  }));
  expect((await postEvents(t, key, wire)).status).toBe(202);
  const other = await t.createAccount();
  otherKey = other.key;
  otherLink = await insertLink(t, other.accountId);
  // Another account's conversion by the same visitor id, through its own link: never credited here.
  const otherWire = [{ link_id: otherLink, visitor_id: "v1", event_type: "conversion", page_url: "https://x.example/", revenue_cents: 77 }];
  expect((await postEvents(t, otherKey, otherWire)).status).toBe(202);
  await t.flush();
  await t.runtime.deps.ch.insert(
    "clicks",
    CLICKS.map((c) => ({
      click_id: c.visitor,
      timestamp: now - c.ago,
      account_id: acc.accountId,
      link_id: ids[c.link],
      domain: "",
      visitor_hash: 1,
      is_bot: 0,
      bot_kind: "",
      device_type: "",
      browser: "",
      browser_version: "",
      os: "",
      os_version: "",
      country_code: "",
      region: "",
      city: "",
      referrer: "",
      referrer_url: "",
      language: "",
      query: "",
    })),
  );
}, 60_000);
afterAll(() => t.close());

const get = async (path: string, apiKey = key) => t.call(`/public-api/v1/conversions/${path}`, { key: apiKey });

async function checkModels(label: string) {
  for (const [windowDays, query] of [
    [30, ""],
    [90, "&window_days=90"],
    [1, "&window_days=1"],
  ] as const) {
    for (const model of ["first", "last", "linear"] as Model[]) {
      for (const scope of [undefined, ["A"] as Name[]]) {
        const linkQuery = scope ? `&link_id=${ids.A}` : "";
        const res = await get(`attribution?model=${model}${query}${linkQuery}`);
        expect(res.status, `${label} ${model} ${windowDays}`).toBe(200);
        const body = res.body.data;
        const want = expected(model, windowDays, scope);
        const got = new Map<string, { n: number; revenue: number }>(
          body.rows.map((r: any) => [r.kind === "direct" ? "" : r.id, { n: r.conversions, revenue: r.revenue }]),
        );
        expect([...got.keys()].sort(), `${label} ${model} ${windowDays} ${scope}`).toEqual([...want.keys()].sort());
        for (const [link, w] of want) {
          expect(got.get(link)!.n).toBeCloseTo(w.n, 2);
          expect(got.get(link)!.revenue).toBeCloseTo(w.cents / 100, 2);
        }
        // Totals equal the conversions summary of the same scope and period.
        const summary = (await get(`summary${scope ? `?link_id=${ids.A}` : ""}`)).body.data;
        expect(body.total_conversions).toBe(summary.total_conversions);
        expect(body.total_revenue).toBe(summary.total_revenue);
        expect(body.rows.at(-1).kind === "direct" || !want.has("")).toBe(true);
      }
    }
  }
}

describe("GET /conversions/attribution", () => {
  test("the scenario holds what the models tell apart", () => {
    // Guards the reference itself: first and last differ, a direct row exists at 30 days and not at 90.
    expect(expected("first", 30).get(ids.A)?.n).not.toBe(expected("last", 30).get(ids.A)?.n);
    expect(expected("first", 30).has("")).toBe(true);
    expect(expected("first", 90).has("")).toBe(false);
    expect(expected("linear", 30).get(ids.C)?.n).toBeCloseTo(1 / 3 + 0, 5);
  });

  test("every model and window matches the credits computed from what was sent, before merges", async () => {
    await checkModels("unmerged");
  }, 60_000);

  test("and after OPTIMIZE … FINAL", async () => {
    await forceMerges(t);
    await checkModels("merged");
  }, 120_000);

  test("group_by=campaign sums the links of each campaign; links without one are `no campaign`", async () => {
    const body = (await get("attribution?model=linear&group_by=campaign")).body.data;
    const want = expected("linear", 30);
    const byKind = (kind: string, id: string | null) => body.rows.find((r: any) => r.kind === kind && r.id === id);
    expect(byKind("campaign", campaignIds.Launch).conversions).toBeCloseTo(want.get(ids.A)!.n, 2);
    expect(byKind("campaign", campaignIds.Launch).label).toBe("Launch");
    expect(byKind("campaign", campaignIds.Spring).conversions).toBeCloseTo(want.get(ids.C)!.n, 2);
    expect(byKind("no_campaign", null).conversions).toBeCloseTo(want.get(ids.B)!.n, 2);
    expect(byKind("direct", null).label).toBe("direct / none");
    expect(body.rows.at(-1).kind).toBe("direct");
  });

  test("another account's link is 404; bad input is 400 naming the field", async () => {
    expect((await get(`attribution?link_id=${otherLink}`)).status).toBe(404);
    const window = await get("attribution?window_days=91");
    expect(window.status).toBe(400);
    expect(JSON.stringify(window.body)).toContain("window_days");
    const model = await get("attribution?model=middle");
    expect(model.status).toBe(400);
    expect(JSON.stringify(model.body)).toContain("model");
    // The other account sees only its own conversion, credited to its own link.
    const theirs = (await get("attribution", otherKey)).body.data;
    expect(theirs.total_conversions).toBe(1);
    expect(theirs.rows.map((r: any) => r.id)).toEqual([otherLink]);
  });

  test("needs conversions:read", async () => {
    const acc = await t.createAccount({ scopes: ["links:read"] });
    expect((await get("attribution", acc.key)).status).toBe(403);
  });
});
