// <svc-realtime> against the API answers for the same attributes (the API's own figures are checked
// against what was sent in test/realtime/), and its polling: it asks again every `refresh` seconds.
import { describe, expect, test } from "bun:test";
import { apiData, en, loaded, mount, settled, setupWidgetTests, spyFetch, stat, table, text, useBackend } from "./helpers";

setupWidgetTests();
const b = useBackend();
const figures = (d: any) => ({ source: d.source, visitors: d.visitors, events: d.events });

describe("<svc-realtime>", () => {
  test("the account's clicks: the 5 minutes' figures and the 30 minutes, as the API gives them", async () => {
    const el = mount("svc-realtime", { "api-base": b.base, "api-key": b.keys.full, refresh: 0 });
    const d = await loaded(el);
    expect(figures(d)).toEqual(figures(await apiData(b, "/analytics/realtime")));
    expect(d.visitors).toBeGreaterThan(0);
    expect(stat(el, "Visitors, last 5 minutes")).toBe(en(d.visitors));
    expect(stat(el, "Clicks, last 5 minutes")).toBe(en(d.events));
    const rows = table(el, "Visitors per minute").slice(1);
    expect(rows.map((r) => [r[1], r[2]])).toEqual(d.minutes.map((m: any) => [en(m.visitors), en(m.events)]));
  });

  test("a link's journey events; without link-id it asks for one before fetching", async () => {
    const el = mount("svc-realtime", { "api-base": b.base, "api-key": b.keys.full, "link-id": b.linkId, source: "journey", refresh: 0 });
    const d = await loaded(el);
    expect(figures(d)).toEqual(figures(await apiData(b, `/journey/links/${b.linkId}/realtime`)));
    expect(stat(el, "Events, last 5 minutes")).toBe(en(d.events));
    const spy = spyFetch();
    try {
      const bare = mount("svc-realtime", { "api-base": b.base, "api-key": b.keys.full, source: "journey" });
      expect((await settled(bare)).detail.code).toBe("MISSING_ATTRIBUTE");
      expect(text(bare)).toContain("set link-id");
      expect(spy.urls.length).toBe(0);
    } finally {
      spy.restore();
    }
  });

  test("refresh=1 asks again every second until the element leaves the page", async () => {
    const spy = spyFetch();
    try {
      const el = mount("svc-realtime", { "api-base": b.base, "api-key": b.keys.full, refresh: 1 });
      await loaded(el);
      await loaded(el); // the timer's refresh, a second later
      expect(spy.urls.filter((u) => u.pathname.endsWith("/analytics/realtime")).length).toBeGreaterThanOrEqual(2);
      el.remove();
    } finally {
      spy.restore();
    }
  });
});
