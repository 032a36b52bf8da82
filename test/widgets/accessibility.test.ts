// What every widget offers besides numbers: accessible charts with a table alternative, live
// status, theming hooks, and locale resolution.
import { describe, expect, test } from "bun:test";
import { charts, create, loaded, mount, setupWidgetTests, stat, useBackend, win } from "./helpers";

setupWidgetTests();
const b = useBackend();

const all = () =>
  [
    ["svc-summary", {}],
    ["svc-timeseries", {}],
    ["svc-breakdown", { dimension: "geo" }],
    ["svc-breakdown", { dimension: "hourly" }],
    ["svc-link-stats", { "link-id": b.linkId }],
    ["svc-funnel", { "link-id": b.linkId, steps: b.funnelSteps.join(",") }],
    ["svc-conversions", {}],
    ["svc-attribution", {}],
  ] as const;

describe("accessibility and theming", () => {
  test("every chart is an img with a label and title, focusable, with a table next to it", async () => {
    for (const [tag, attrs] of all()) {
      const el = mount(tag, { "api-base": b.base, "api-key": b.keys.full, ...attrs });
      await loaded(el);
      const root = el.shadowRoot!;
      expect(root.querySelector("h2")!.textContent!.length).toBeGreaterThan(0);
      expect(root.querySelector("[role=status]")).not.toBeNull();
      for (const svg of charts(el)) {
        expect(svg.getAttribute("role")).toBe("img");
        expect(svg.getAttribute("tabindex")).toBe("0");
        expect(svg.getAttribute("aria-label")!.length).toBeGreaterThan(10);
        expect(svg.querySelector(":scope > title")!.textContent).toBe(svg.getAttribute("aria-label")!);
      }
      if (tag !== "svc-summary" && tag !== "svc-link-stats") {
        const details = root.querySelectorAll("details");
        expect(details.length).toBeGreaterThan(0);
        for (const d of details) {
          expect(d.querySelector("summary")).not.toBeNull();
          expect(d.querySelector("table caption")).not.toBeNull();
          expect(d.querySelectorAll("thead th[scope=col]").length).toBeGreaterThan(1);
        }
      }
    }
  });

  test('theme hooks: --svc-* custom properties, prefers-color-scheme and theme="dark|light"', async () => {
    const el = mount("svc-summary", { "api-base": b.base, "api-key": b.keys.full, theme: "dark" });
    await loaded(el);
    const css = el.shadowRoot!.querySelector("style")!.textContent!;
    for (const v of ["--svc-bg", "--svc-fg", "--svc-accent", "--svc-muted", "--svc-font", "--svc-border", "--svc-radius"])
      expect(css).toContain(`var(${v}`);
    expect(css).toContain(":host([theme=dark])");
    expect(css).toContain("@media (prefers-color-scheme:dark){:host(:not([theme=light]))");
    expect(el.shadowRoot!.querySelector("section")!.getAttribute("part")).toBe("card");
  });

  test("locale: nearest lang attribute, then <html lang>, then navigator.language", async () => {
    const wrap = create("div");
    wrap.setAttribute("lang", "fr-FR");
    document.body.appendChild(wrap);
    const inFrench = create("svc-summary");
    inFrench.setAttribute("api-base", b.base);
    inFrench.setAttribute("api-key", b.keys.full);
    wrap.appendChild(inFrench);
    const { analytics } = await loaded(inFrench);
    expect(stat(inFrench, "Clicks, last 30 days")).toBe(new Intl.NumberFormat("fr-FR").format(analytics.total_clicks));
    wrap.remove();

    win.document.documentElement.removeAttribute("lang");
    const desc = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(win.navigator), "language");
    Object.defineProperty(win.navigator, "language", { value: "de-CH", configurable: true });
    try {
      const el = mount("svc-summary", { "api-base": b.base, "api-key": b.keys.full, days: 365 });
      const { analytics: a } = await loaded(el);
      expect(stat(el, "Clicks, last 365 days")).toBe(new Intl.NumberFormat("de-CH").format(a.total_clicks));
    } finally {
      delete (win.navigator as any).language;
      if (desc) expect(win.navigator.language).toBeDefined();
    }
  });

  test("a malformed lang does not break rendering", async () => {
    win.document.documentElement.setAttribute("lang", "not a locale!");
    const el = mount("svc-summary", { "api-base": b.base, "api-key": b.keys.full });
    const { analytics } = await loaded(el);
    expect(stat(el, "Clicks, last 30 days")).toBe(new Intl.NumberFormat().format(analytics.total_clicks));
  });
});
