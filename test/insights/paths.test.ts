// The paths report (server/insights/paths-query.ts) against a model computed in the test from the events
// it sent: random visitors with several sessions, events without a session, page views with an
// event_name, events before the period; before and after forcing every merge. Step 1 reconciles with the
// funnel's first step and every step with the summary's visitors.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { insertLink, postEvents } from "../journey/helpers";
import { forceMerges, type PathEvent as Ev, random, stopMerges, visitorPaths } from "./helpers";

let t: TestApp;
let key: string;
let link: string;

const HOUR = 3_600_000;
const NOW = Date.now();
const FROM_24H = Math.floor((NOW - 24 * HOUR) / HOUR) * HOUR;
const FROM_7D = Math.floor((NOW - 7 * 24 * HOUR) / HOUR) * HOUR;
const rnd = random(20261129);
const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
const TYPES = ["page_view", "page_view", "page_view", "scroll_depth", "time_on_page", "custom", "conversion"];
const URLS = ["/a", "/b", "/c", "/pricing", "signup"];
const NAMES = ["signup", "add_to_cart", "purchase"];

function randomEvents(): Ev[] {
  const events: Ev[] = [];
  let unique = 0; // every event at its own millisecond: no ties for the model to order
  for (let v = 0; v < 250; v++) {
    for (let s = 0, sessions = 1 + Math.floor(rnd() * 3); s < sessions; s++) {
      let time = NOW - Math.floor(rnd() * 30 * 24 * HOUR);
      const session = rnd() < 0.15 ? undefined : `v${v}s${s}`;
      for (let i = 0, n = 1 + Math.floor(rnd() * 9); i < n; i++) {
        time += Math.floor(rnd() * 300) * 1000 + (++unique % 997);
        const type = pick(TYPES);
        const named = type === "custom" || type === "conversion" || (type === "page_view" && rnd() < 0.1);
        events.push({
          visitor_id: `v${v}`,
          session_id: session,
          event_type: type,
          event_name: named ? pick(NAMES) : undefined,
          page_url: pick(URLS),
          at: Math.min(time, NOW - 1000 - unique),
        });
      }
    }
  }
  return events;
}
let events: Ev[];

const nodeOf = (e: Ev) => (e.event_type === "page_view" ? `page_view:${e.page_url}` : `${e.event_type}:${e.event_name ?? e.event_type}`);

/** The paths as docs/insights.md defines them, from the events sent. */
function model(fromMs: number, target: string, direction: "forward" | "backward", steps: number, toMs = Infinity) {
  const paths = visitorPaths(events, { fromMs, toMs, target, direction, steps }, nodeOf);
  const stepNodes = new Map<string, { visitors: number; left: number }>();
  const edges = new Map<string, number[]>();
  for (const p of paths) {
    p.forEach((e, j) => {
      const id = `${j + 1}_${nodeOf(e)}`;
      const n = stepNodes.get(id) ?? { visitors: 0, left: 0 };
      stepNodes.set(id, n);
      n.visitors++;
      if (j === p.length - 1) n.left++;
      else {
        const edge = `${id} → ${j + 2}_${nodeOf(p[j + 1])}`;
        edges.set(edge, [...(edges.get(edge) ?? []), Math.abs(p[j + 1].at - e.at)]);
      }
    });
  }
  // The median as ClickHouse's quantileExact(0.5) gives it: the upper middle of an even count.
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] / 1000;
  return {
    visitors: paths.length,
    nodes: Object.fromEntries([...stepNodes].sort()),
    edges: Object.fromEntries([...edges].map(([k, xs]) => [k, { visitors: xs.length, median_seconds: median(xs) }]).sort()),
  };
}

beforeAll(async () => {
  t = await createTestApp();
  const acc = await t.createAccount();
  key = acc.key;
  link = await insertLink(t, acc.accountId);
  await stopMerges(t);
  events = randomEvents();
  const shuffled = [...events].sort(() => rnd() - 0.5);
  for (let i = 0; i < shuffled.length; i += 100) {
    const batch = shuffled.slice(i, i + 100).map(({ at, ...e }) => ({ ...e, link_id: link, timestamp: new Date(at).toISOString() }));
    expect((await postEvents(t, key, batch)).status).toBe(202);
    if (i % 300 === 0) await t.flush();
  }
  await t.flush();
}, 120_000);
afterAll(() => t.close());

const get = async (path: string) => {
  const res = await t.call(`/public-api/v1/journey/links/${link}/${path}`, { key });
  expect(res.status).toBe(200);
  return res.body.data;
};

/** The report reduced to what the model gives. */
function shape(report: any) {
  const nodes: Record<string, { visitors: number; left: number }> = {};
  for (const s of report.steps) {
    expect(s.visitors).toBe(s.nodes.reduce((a: number, n: any) => a + n.visitors, 0) + s.other_visitors);
    expect(s.left).toBe(s.nodes.reduce((a: number, n: any) => a + n.left, 0));
    for (const n of s.nodes) nodes[n.id] = { visitors: n.visitors, left: n.left };
  }
  const edges = Object.fromEntries(
    report.edges.map((e: any) => [`${e.source} → ${e.target}`, { visitors: e.visitors, median_seconds: e.median_seconds }]).sort(),
  );
  return { visitors: report.visitors, nodes: Object.fromEntries(Object.entries(nodes).sort()), edges };
}

const CASES: [period: "24h" | "7d", from: number, param: "start" | "end", target: string, steps: number][] = [
  ["7d", FROM_7D, "start", "/pricing", 5],
  ["7d", FROM_7D, "start", "page_view", 10],
  ["24h", FROM_24H, "start", "signup", 4],
  ["7d", FROM_7D, "end", "conversion", 6],
  ["7d", FROM_7D, "end", "/b", 3],
  ["7d", FROM_7D, "start", "scroll_depth", 3],
];

async function checkAll() {
  for (const [period, from, param, target, steps] of CASES) {
    const report = await get(`paths?period=${period}&${param}=${encodeURIComponent(target)}&steps=${steps}&limit=50`);
    const expected = model(from, target, param === "start" ? "forward" : "backward", steps);
    expect({ period, param, target, ...shape(report) }).toEqual({ period, param, target, ...expected });
    expect(expected.visitors).toBeGreaterThan(5);
    // Step 1 is the funnel's first step for the same name; the steps narrow by those who left.
    const funnel = await get(`funnel?period=${period}&steps=${encodeURIComponent(target)}`);
    expect(report.steps[0].visitors).toBe(funnel.steps[0].visitors);
    for (let i = 1; i < report.steps.length; i++) {
      expect(report.steps[i].visitors).toBe(report.steps[i - 1].visitors - report.steps[i - 1].left);
    }
  }
  // Every visitor of the period starts a path from "page_view" or another event type: the summary's visitors.
  const summary = await get("summary?period=7d");
  const anyEvent = new Set<string>();
  for (const type of ["page_view", "scroll_depth", "time_on_page", "custom", "conversion"]) {
    const r = await get(`paths?period=7d&start=${type}&steps=2`);
    expect(r.visitors).toBe(model(FROM_7D, type, "forward", 2).visitors);
  }
  for (const e of events) if (e.at >= FROM_7D) anyEvent.add(e.visitor_id);
  expect(summary.total_visitors).toBe(anyEvent.size);
}

test("paths match the model of the events sent, step 1 the funnel's, before and after forced merges", async () => {
  await checkAll();
  await forceMerges(t);
  await checkAll();
}, 120_000);

test("limit keeps the busiest nodes and counts the rest; names come back as sent", async () => {
  const report = await get("paths?period=7d&start=page_view&steps=3&limit=1");
  const full = await get("paths?period=7d&start=page_view&steps=3&limit=50");
  for (const [i, s] of report.steps.entries()) {
    expect(s.nodes.length).toBe(1);
    expect(s.visitors).toBe(full.steps[i].visitors);
    expect(s.nodes[0].visitors).toBe(Math.max(...full.steps[i].nodes.map((n: any) => n.visitors)));
  }
  expect(full.steps[0].nodes.map((n: any) => n.name).sort()).toEqual(URLS.slice().sort());
});

test("bad input is refused naming the field; another account's link is not found", async () => {
  for (const [query, field] of [
    ["start=/a&end=/b", "query.start"],
    ["", "query.start"],
    ["start=/a&steps=11", "query.steps"],
    ["start=/a&steps=1", "query.steps"],
    ["start=/a&limit=0", "query.limit"],
    ["start=/a&compare=month", "query.compare"],
    ["start=/a&bogus=1", "query.bogus"],
  ]) {
    const res = await t.call(`/public-api/v1/journey/links/${link}/paths?${query}`, { key });
    expect({ query, status: res.status }).toEqual({ query, status: 400 });
    expect(JSON.stringify(res.body.error)).toContain(field.replace("query.", ""));
  }
  const other = await t.createAccount();
  const res = await t.call(`/public-api/v1/journey/links/${link}/paths?start=/a`, { key: other.key });
  expect(res.status).toBe(404);
});

test("compare=previous gives the same report over the period a week earlier, with the change of its figures", async () => {
  const report = await get("paths?period=7d&start=/pricing&steps=4&limit=50&compare=previous");
  const comparison = report.comparison;
  const WEEK = 7 * 24 * HOUR;
  // Within the hour the test runs in: the period start is FROM_7D, the compared window a week before it.
  expect(Date.parse(comparison.from)).toBe(FROM_7D - WEEK);
  const to = Date.parse(comparison.to);
  expect(to).toBeGreaterThan(NOW - WEEK - 1);
  const expected = model(FROM_7D - WEEK, "/pricing", "forward", 4, to);
  expect(shape(comparison.data)).toEqual(expected);
  expect(expected.visitors).toBeGreaterThan(5);
  expect(shape(report)).toEqual(model(FROM_7D, "/pricing", "forward", 4));
  const change = (report.visitors - expected.visitors) / expected.visitors;
  expect(comparison.change.visitors).toEqual({
    current: report.visitors,
    previous: expected.visitors,
    change_percent: Math.round(change * 10_000) / 100,
  });
  // A year before, nothing: the change has no percentage.
  const year = (await get("paths?period=7d&start=/pricing&compare=year")).comparison;
  expect(Date.parse(year.from)).toBe(FROM_7D - 52 * WEEK);
  expect(year.data.visitors).toBe(0);
  expect(year.change.visitors.change_percent).toBeNull();
});
