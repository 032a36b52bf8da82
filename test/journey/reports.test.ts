// Journey reports of one link (summary, sessions, events, funnel), checked against numbers computed
// here from the events this test sends.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { ago, insertLink, postEvents } from "./helpers";

let t: TestApp;
let key: string;
let link: string;
const base = "https://shop.example";

interface Ev {
  visitor_id: string;
  session_id?: string;
  event_type: string;
  page_url: string;
  event_name?: string;
  minutesAgo: number;
  device_type?: string;
  country_code?: string;
}
const pv = (visitor_id: string, session_id: string | undefined, path: string, minutesAgo: number, extra: Partial<Ev> = {}): Ev => ({
  visitor_id,
  session_id,
  event_type: "page_view",
  page_url: base + path,
  minutesAgo,
  ...extra,
});
const named = (visitor_id: string, session_id: string | undefined, event_type: string, name: string, minutesAgo: number): Ev => ({
  visitor_id,
  session_id,
  event_type,
  event_name: name,
  page_url: base + "/app",
  minutesAgo,
});

const DAY = 24 * 60;
const EVENTS: Ev[] = [
  pv("v1", "s1", "/home", 60, { device_type: "desktop", country_code: "DE" }),
  pv("v1", "s1", "/pricing", 58),
  named("v1", "s1", "custom", "signup", 55),
  named("v1", "s1", "conversion", "purchase", 50),
  pv("v2", "s2", "/home", 40, { device_type: "mobile" }),
  pv("v2", "s2", "/pricing", 39),
  { visitor_id: "v2", session_id: "s2", event_type: "scroll_depth", page_url: base + "/pricing", minutesAgo: 38 },
  pv("v3", "s3", "/home", 30),
  pv("v3", "s4", "/pricing", 20),
  named("v3", "s4", "custom", "signup", 19),
  named("v6", "s6", "custom", "signup", 25),
  pv("v6", "s6", "/home", 24),
  pv("v6", "s6", "/pricing", 23),
  pv("v7", "s7", "/home", 15),
  named("v7", "s7", "custom", "signup", 14),
  pv("v7", "s7", "/pricing", 13),
  named("v7", "s7", "custom", "signup", 12),
  pv("v4", undefined, "/home", 10),
  pv("v5", "s5", "/home", 10 * DAY),
  pv("v5", "s5", "/pricing", 10 * DAY - 5),
];
const SESSIONS = [...new Set(EVENTS.map((e) => e.session_id).filter(Boolean))];
// Periods start on a whole UTC hour (the rollups' grain).
const NOW = Date.now();
const within = (minutes: number) => {
  const start = Math.floor((NOW - minutes * 60_000) / 3_600_000) * 3_600_000;
  return EVENTS.filter((e) => NOW - e.minutesAgo * 60_000 >= start);
};

beforeAll(async () => {
  t = await createTestApp();
  const acc = await t.createAccount();
  key = acc.key;
  link = await insertLink(t, acc.accountId);
  const other = await insertLink(t, acc.accountId); // same account, other link: must not leak in
  const wire = ({ minutesAgo, ...e }: Ev) => ({ ...e, link_id: link, timestamp: ago(minutesAgo) });
  expect((await postEvents(t, key, EVENTS.map(wire))).status).toBe(202);
  expect((await postEvents(t, key, [{ ...wire(EVENTS[0]), link_id: other }])).status).toBe(202);
  await t.flush();
}, 60_000);
afterAll(() => t.close());

const get = (path: string, apiKey = key) => t.call(`/public-api/v1/journey/links/${path}`, { key: apiKey });
const countBy = <T>(items: T[], f: (x: T) => string | undefined) => {
  const m = new Map<string, number>();
  for (const x of items) {
    const k = f(x);
    if (k) m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
};

describe("summary", () => {
  test("30d (default): totals, average session duration, top pages and events", async () => {
    const res = await get(`${link}/summary`);
    expect(res.status).toBe(200);
    const sessions = SESSIONS;
    const durations = sessions.map((s) => {
      const mins = EVENTS.filter((e) => e.session_id === s).map((e) => e.minutesAgo);
      return (Math.max(...mins) - Math.min(...mins)) * 60;
    });
    const pages = countBy(
      EVENTS.filter((e) => e.event_type === "page_view"),
      (e) => e.page_url,
    );
    const names = countBy(EVENTS, (e) => e.event_name);
    const d = res.body.data;
    expect(d.total_visitors).toBe(new Set(EVENTS.map((e) => e.visitor_id)).size);
    expect(d.total_sessions).toBe(sessions.length);
    expect(d.total_events).toBe(EVENTS.length);
    expect(d.avg_session_duration_seconds).toBeCloseTo(durations.reduce((a, b) => a + b, 0) / durations.length, 1);
    expect(d.top_pages).toEqual(
      [...pages].map(([url, count]) => ({ url, count })).sort((a, b) => b.count - a.count || a.url.localeCompare(b.url)),
    );
    expect(d.top_events).toEqual(
      [...names].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)),
    );
  });

  test("period narrows the window", async () => {
    const week = (await get(`${link}/summary?period=7d`)).body.data;
    expect(week.total_events).toBe(within(7 * DAY).length);
    expect(week.total_visitors).toBe(new Set(within(7 * DAY).map((e) => e.visitor_id)).size);
    const day = (await get(`${link}/summary?period=24h`)).body.data;
    expect(day.total_events).toBe(within(DAY).length);
    expect((await get(`${link}/summary?period=1y`)).status).toBe(400);
  });
});

describe("sessions", () => {
  test("one item per session, newest first, with the documented fields", async () => {
    const res = await get(`${link}/sessions`);
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ page: 1, per_page: 20, total: SESSIONS.length, total_pages: 1 });
    expect(res.body.data).toHaveLength(SESSIONS.length);
    const s1 = res.body.data.find((s: { session_id: string }) => s.session_id === "s1");
    expect(s1).toEqual({
      session_id: "s1",
      visitor_id: "v1",
      started_at: expect.any(String),
      ended_at: expect.any(String),
      duration_seconds: expect.any(Number),
      event_count: 4,
      page_views: 2,
      entry_page: base + "/home",
      exit_page: base + "/app",
      converted: true,
      device_type: "desktop",
      country_code: "DE",
    });
    expect(s1.duration_seconds).toBeCloseTo(600, 0);
    expect(Date.parse(s1.ended_at) - Date.parse(s1.started_at)).toBeCloseTo(600_000, -2);
    const started = res.body.data.map((s: { started_at: string }) => Date.parse(s.started_at));
    expect(started).toEqual([...started].sort((a, b) => b - a));
    expect(res.body.data.find((s: { session_id: string }) => s.session_id === "s2").converted).toBe(false);
  });

  test("paginates and filters by visitor_id", async () => {
    const page2 = await get(`${link}/sessions?limit=4&page=2`);
    expect(page2.body.data).toHaveLength(SESSIONS.length - 4);
    expect(page2.body.meta).toMatchObject({ page: 2, per_page: 4, total: SESSIONS.length, total_pages: 2 });
    const v3 = await get(`${link}/sessions?visitor_id=v3`);
    expect(v3.body.data.map((s: { session_id: string }) => s.session_id)).toEqual(["s4", "s3"]);
    expect(v3.body.meta.total).toBe(2);
    for (const [q, field] of [
      ["sessions?limit=101", "query.limit"],
      ["sessions?limit=0", "query.limit"],
      ["sessions?page=0", "query.page"],
      ["events?limit=201", "query.limit"],
      ["events?page=1000001", "query.page"],
    ]) {
      const res = await get(`${link}/${q}`);
      expect({ q, status: res.status, field: res.body.error.details.fields[0].field }).toEqual({ q, status: 400, field });
    }
    expect((await get(`${link}/events?limit=200`)).status).toBe(200);
  });
});

describe("events", () => {
  test("lists events with their id, newest first, paginated (default 50, max 200)", async () => {
    const res = await get(`${link}/events?period=90d`);
    expect(res.body.meta).toMatchObject({ page: 1, per_page: 50, total: EVENTS.length });
    expect(res.body.data[0]).toMatchObject({
      id: expect.any(String),
      link_id: link,
      visitor_id: "v4",
      event_type: "page_view",
      page_url: base + "/home",
    });
    const ids = new Set(res.body.data.map((e: { id: string }) => e.id));
    expect(ids.size).toBe(EVENTS.length);
    const page = await get(`${link}/events?limit=5&page=4`);
    expect(page.body.data).toHaveLength(EVENTS.length - 15);
    expect((await get(`${link}/events?limit=201`)).status).toBe(400);
    expect((await get(`${link}/events?limit=200`)).status).toBe(200);
  });

  test("filters by event_type", async () => {
    const res = await get(`${link}/events?event_type=custom`);
    expect(res.body.meta.total).toBe(EVENTS.filter((e) => e.event_type === "custom").length);
    expect(res.body.data.every((e: { event_type: string }) => e.event_type === "custom")).toBe(true);
    expect((await get(`${link}/events?event_type=click`)).status).toBe(400);
  });
});

describe("funnel", () => {
  test("visitors per step in strict order, conversion rate from the previous step", async () => {
    const steps = [`${base}/home`, `${base}/pricing`, "signup", "purchase"];
    const res = await get(`${link}/funnel?steps=${encodeURIComponent(steps.join(","))}`);
    expect(res.status).toBe(200);
    // Levels reached: v1 4; v2 2; v3 3 (across two sessions); v4 1; v5 2;
    // v6 2 (signup before home does not count); v7 1 (signup came before pricing: strict order stops there).
    const levels = [4, 2, 3, 1, 2, 2, 1];
    const visitors = steps.map((_, i) => levels.filter((l) => l > i).length);
    expect(res.body.data.steps).toEqual(
      steps.map((step_name, i) => ({
        step_name,
        visitors: visitors[i],
        conversion_rate: i === 0 ? 100 : Math.round((visitors[i] / visitors[i - 1]) * 10_000) / 100,
      })),
    );
    expect(visitors).toEqual([7, 5, 2, 1]);
    expect(res.body.data.total_visitors).toBe(7);
  });

  test("event types work as steps and the period applies", async () => {
    const res = await get(`${link}/funnel?steps=page_view,conversion&period=7d`);
    expect(res.body.data.steps).toEqual([
      { step_name: "page_view", visitors: 6, conversion_rate: 100 },
      { step_name: "conversion", visitors: 1, conversion_rate: Math.round((1 / 6) * 10_000) / 100 },
    ]);
    expect(res.body.data.total_visitors).toBe(6);
  });

  test("a step nobody reached gives 0 and later rates 0", async () => {
    const res = await get(`${link}/funnel?steps=nothing,signup`);
    expect(res.body.data.steps).toEqual([
      { step_name: "nothing", visitors: 0, conversion_rate: 100 },
      { step_name: "signup", visitors: 0, conversion_rate: 0 },
    ]);
  });

  test("steps are required", async () => {
    const none = await get(`${link}/funnel`);
    expect(none.status).toBe(400);
    expect(none.body.error.details.fields[0].field).toBe("query.steps");
    expect((await get(`${link}/funnel?steps=a,,b`)).status).toBe(400);
  });
});

describe("access", () => {
  test("another account's link, an unknown link → 404; a malformed id → 400", async () => {
    const stranger = await t.createAccount();
    for (const report of ["summary", "sessions", "events", "funnel?steps=a"]) {
      const res = await get(`${link}/${report}`, stranger.key);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
      expect((await get(`${crypto.randomUUID()}/${report}`)).status).toBe(404);
    }
    expect((await get("not-a-uuid/summary")).status).toBe(400);
  });

  test("needs journey:read", async () => {
    const writer = await t.createAccount({ scopes: ["journey:write"] });
    expect((await get(`${link}/summary`, writer.key)).status).toBe(403);
  });
});
