// dashboard.html driven in happy-dom: the same controls the Chromium end-to-end test will use.
import { afterEach, describe, expect, test } from "bun:test";
import { apiData, en, loaded, setupWidgetTests, stat, useBackend, win } from "./helpers";
import { memoryStorage, openDashboard } from "./dashboard-page";

setupWidgetTests();
const b = useBackend();
// Widgets still loading when a test ends would query a server that afterAll has closed.
afterEach(async () => {
  const busy = () => [...win.document.querySelectorAll("#widgets > *")].some((w: any) => w.state === "loading" || w.state === "idle");
  for (let i = 0; i < 200 && busy(); i++) await new Promise((r) => setTimeout(r, 25));
  win.document.body.innerHTML = "";
  delete win.document.documentElement.dataset.theme;
});

const open = (storage?: Storage) => openDashboard(b.base, storage);

describe("dashboard.html", () => {
  test("saving a key stores it, lists the links and sets every widget up", async () => {
    const { $, widgets, dash, storage } = open();
    $("#api-key").value = b.keys.full;
    $("#save-key").click();
    expect(storage.getItem("svc-dashboard:key")).toBe(b.keys.full);
    await dash.loadLinks();
    const links = await apiData(b, "/links", { per_page: 100 });
    const options = [...$("#link").options].map((o: any) => [o.value, o.textContent]);
    expect(options).toEqual([["", "All links"], ...links.map((l: any) => [l.id, l.title ? `${l.short_url} — ${l.title}` : l.short_url])]);
    expect($("#link").value).toBe(links[0].id);
    expect($("#link").dataset.state).toBe("ready");

    const tags = widgets().map((w) => w.tagName.toLowerCase());
    expect(tags).toEqual([
      "svc-summary",
      "svc-timeseries",
      "svc-breakdown",
      "svc-breakdown",
      "svc-breakdown",
      "svc-breakdown",
      "svc-link-stats",
      "svc-funnel",
      "svc-conversions",
      "svc-attribution",
    ]);
    for (const w of widgets()) {
      expect(w.getAttribute("api-key")).toBe(b.keys.full);
      expect(w.getAttribute("api-base")).toBe(b.base);
    }
    const by = (id: string) => $("#" + id);
    expect(by("w-summary").getAttribute("days")).toBe("30");
    expect(by("w-conversions").getAttribute("period")).toBe("30d");
    expect(by("w-link-stats").getAttribute("link-id")).toBe(links[0].id);
    expect(by("w-funnel").getAttribute("steps")).toBe("page_view,signup,purchase");

    // the widgets really render the API's numbers: the picked link's, not the account's
    expect(by("w-summary").getAttribute("link-id")).toBe(links[0].id);
    expect(by("w-geo").getAttribute("link-id")).toBe(links[0].id);
    const summary = by("w-summary");
    if (summary.state !== "loaded") await loaded(summary);
    const api = await apiData(b, "/analytics/summary", { days: 30, link_id: links[0].id });
    expect(stat(summary, "Clicks, last 30 days")).toBe(en(api.analytics.total_clicks));
    const account = await apiData(b, "/analytics/summary", { days: 30 });
    expect(api.analytics.total_clicks).not.toBe(account.analytics.total_clicks);
  });

  test("range, link, steps and theme controls set the attributes", async () => {
    const { $, dash, change, storage } = open(memoryStorage({ "svc-dashboard:key": b.keys.full }));
    await dash.ready;
    change("#range", "7");
    expect($("#w-summary").getAttribute("days")).toBe("7");
    expect($("#w-geo").getAttribute("days")).toBe("7");
    expect($("#w-funnel").getAttribute("period")).toBe("7d");
    expect($("#w-conversions").getAttribute("period")).toBe("7d");
    expect($("#w-attribution").getAttribute("period")).toBe("7d");
    change("#link", b.quietLinkId);
    expect($("#w-link-stats").getAttribute("link-id")).toBe(b.quietLinkId);
    expect($("#w-timeseries").getAttribute("link-id")).toBe(b.quietLinkId);
    expect($("#w-conversions").getAttribute("link-id")).toBe(b.quietLinkId);
    expect($("#w-attribution").getAttribute("link-id")).toBe(b.quietLinkId);
    change("#link", "");
    expect($("#w-conversions").hasAttribute("link-id")).toBe(false);
    change("#steps", " visit,buy ");
    expect($("#w-funnel").getAttribute("steps")).toBe("visit,buy");
    expect(storage.getItem("svc-dashboard:range")).toBe("7");
    expect(storage.getItem("svc-dashboard:steps")).toBe("visit,buy");

    const before = $("#w-summary").getAttribute("theme");
    $("#theme").click();
    const after = before === "dark" ? "light" : "dark";
    expect($("#w-summary").getAttribute("theme")).toBe(after);
    expect($("#w-conversions").getAttribute("theme")).toBe(after);
    expect($("#theme").getAttribute("aria-pressed")).toBe(String(after === "dark"));
    expect(win.document.documentElement.dataset.theme).toBe(after);
    expect(storage.getItem("svc-dashboard:theme")).toBe(after);
  });

  test("remembers key, link, range, steps and theme", async () => {
    const storage = memoryStorage({
      "svc-dashboard:key": b.keys.full,
      "svc-dashboard:link": b.quietLinkId,
      "svc-dashboard:range": "90",
      "svc-dashboard:steps": "a,b",
      "svc-dashboard:theme": "dark",
    });
    const { $, dash } = open(storage);
    await dash.ready;
    expect($("#api-key").value).toBe(b.keys.full);
    expect($("#link").value).toBe(b.quietLinkId);
    expect($("#range").value).toBe("90");
    expect($("#w-funnel").getAttribute("steps")).toBe("a,b");
    expect($("#w-funnel").getAttribute("link-id")).toBe(b.quietLinkId);
    expect($("#w-timeseries").getAttribute("days")).toBe("90");
    expect($("#w-summary").getAttribute("theme")).toBe("dark");
  });

  test("a key without links:read says so", async () => {
    const { $, dash } = open(memoryStorage({ "svc-dashboard:key": b.keys.noLinks }));
    await dash.ready;
    expect($("#link").dataset.state).toBe("error");
    expect($("#status").textContent).toContain("links:read");
  });
});
