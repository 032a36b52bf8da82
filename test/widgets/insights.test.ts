// <svc-paths> and <svc-retention> against the API answers for the same attributes (the API's own
// figures are checked against the events sent in test/insights/).
import { describe, expect, test } from "bun:test";
import { apiData, en, loaded, mount, settled, setupWidgetTests, spyFetch, stat, statNote, table, text, useBackend } from "./helpers";

setupWidgetTests();
const b = useBackend();
const pct = (v: number, signed = false) =>
  new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1, signDisplay: signed ? "exceptZero" : "auto" }).format(
    v / 100,
  );

describe("<svc-paths>", () => {
  test("shows every node of every step and the edges, as the API gives them", async () => {
    const el = mount("svc-paths", { "api-base": b.base, "api-key": b.keys.full, "link-id": b.linkId, start: "page_view", steps: 4 });
    const detail = await loaded(el);
    const api = await apiData(b, `/journey/links/${b.linkId}/paths`, { start: "page_view", steps: 4, period: "30d" });
    expect(detail).toEqual(api);
    expect(api.visitors).toBeGreaterThan(0);
    expect(stat(el, "Started at page_view")).toBe(en(api.visitors));
    const stepName = (k: number) => (k === 1 ? "Start" : `Step ${k}`);
    expect(table(el, "Path steps").slice(1)).toEqual(
      api.steps.flatMap((s: any) => s.nodes.map((n: any) => [stepName(s.step), n.name, en(n.visitors), en(n.left)])),
    );
    expect(table(el, "Path edges").length - 1).toBe(api.edges.length);
    expect(text(el)).toContain("https://shop.example/pricing");
  });

  test("end= walks back; compare= shows the figure's previous value with its change", async () => {
    const spy = spyFetch();
    try {
      const el = mount("svc-paths", {
        "api-base": b.base,
        "api-key": b.keys.full,
        "link-id": b.linkId,
        end: "purchase",
        compare: "previous",
      });
      const d = await loaded(el);
      const u = spy.urls[0];
      expect(u.searchParams.get("end")).toBe("purchase");
      expect(u.searchParams.get("compare")).toBe("previous");
      expect(d.direction).toBe("backward");
      const ch = d.comparison.change.visitors;
      expect(statNote(el, "Did purchase")).toBe(
        `was ${en(ch.previous)} the previous period${ch.change_percent === null ? "" : ` (${pct(ch.change_percent, true)})`}`,
      );
    } finally {
      spy.restore();
    }
  });

  test("asks for start or end before fetching", async () => {
    const spy = spyFetch();
    try {
      const el = mount("svc-paths", { "api-base": b.base, "api-key": b.keys.full, "link-id": b.linkId });
      const s = await settled(el);
      expect(s.detail.code).toBe("MISSING_ATTRIBUTE");
      expect(text(el)).toContain("Set the start attribute");
      expect(spy.urls.length).toBe(0);
    } finally {
      spy.restore();
    }
  });
});

describe("<svc-retention>", () => {
  test("shows each cohort's new visitors and its return rates, as the API gives them", async () => {
    const el = mount("svc-retention", { "api-base": b.base, "api-key": b.keys.full, "link-id": b.linkId, weeks: 4 });
    const detail = await loaded(el);
    const api = await apiData(b, `/journey/links/${b.linkId}/retention`, { weeks: 4 });
    expect(detail).toEqual(api);
    expect(api.visitors).toBeGreaterThan(0);
    expect(stat(el, "New visitors")).toBe(en(api.visitors));
    expect(stat(el, "Came back")).toBe(en(api.returning));
    const grid = table(el, "Returning visitors by week after their first visit");
    expect(grid[0]).toEqual(["Week", "New visitors", "Week 1", "Week 2", "Week 3"]);
    expect(grid.slice(1).map((r) => r.slice(1))).toEqual(
      api.cohorts.map((c: any) => [en(c.visitors), ...c.returns.map((r: any) => (c.visitors ? pct(r.rate) : "—"))]),
    );
  });

  test("a link without journey events shows the empty state", async () => {
    const el = mount("svc-retention", { "api-base": b.base, "api-key": b.keys.full, "link-id": b.quietLinkId });
    await loaded(el);
    expect(el.state).toBe("empty");
    expect(text(el)).toContain("No new visitors in these weeks.");
  });
});
