// <svc-attribution> against the API's answer for the same attributes (the API's own figures are
// checked against the events sent in test/conversions/attribution.test.ts).
import { describe, expect, test } from "bun:test";
import { apiData, en, loaded, mount, setupWidgetTests, spyFetch, stat, table, useBackend, win } from "./helpers";

setupWidgetTests();
const b = useBackend();
const usd = (v: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(v);
const dec = (v: number) => new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 }).format(v);
const pct = (v: number) => new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 }).format(v / 100);

describe("<svc-attribution>", () => {
  test("shows each row's credited conversions, revenue and share, as the API gives them", async () => {
    const el = mount("svc-attribution", { "api-base": b.base, "api-key": b.keys.full, model: "linear", "window-days": 7 });
    const detail = await loaded(el);
    const api = await apiData(b, "/conversions/attribution", { model: "linear", window_days: 7, period: "30d" });
    expect(detail).toEqual(api);
    expect(api.total_conversions).toBeGreaterThan(0);
    expect(stat(el, "Conversions")).toBe(en(api.total_conversions));
    expect(stat(el, "Revenue")).toBe(usd(api.total_revenue));
    expect(table(el, "Linear attribution by link, 7-day window")).toEqual([
      ["Link", "Conversions", "Revenue", "Share"],
      ...api.rows.map((r: any) => [r.label, dec(r.conversions), usd(r.revenue), pct(r.share)]),
    ]);
  });

  test("with `controls`, choosing a model asks the API for it", async () => {
    const el = mount("svc-attribution", { "api-base": b.base, "api-key": b.keys.full, controls: "" });
    await loaded(el);
    const select = el.shadowRoot!.querySelector('select[data-attr="model"]') as any;
    expect(select.value).toBe("first");
    const spy = spyFetch();
    try {
      const next = loaded(el);
      select.value = "last";
      select.dispatchEvent(new win.Event("change", { bubbles: true }));
      const d = await next;
      expect(spy.urls[0].searchParams.get("model")).toBe("last");
      expect(d.model).toBe("last");
      expect(el.getAttribute("model")).toBe("last");
    } finally {
      spy.restore();
    }
  });
});
