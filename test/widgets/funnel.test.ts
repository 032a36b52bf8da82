import { describe, expect, test } from "bun:test";
import {
  apiData,
  charts,
  en,
  loaded,
  mount,
  settled,
  setupWidgetTests,
  spyFetch,
  stat,
  statNote,
  useBackend,
  table,
  text,
} from "./helpers";

setupWidgetTests();
const b = useBackend();

const pct = (v: number) => new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 }).format(v / 100);

describe("<svc-funnel>", () => {
  test("shows each step with the API visitors and rate from the previous step", async () => {
    const steps = b.funnelSteps.join(",");
    const el = mount("svc-funnel", { "api-base": b.base, "api-key": b.keys.full, "link-id": b.linkId, steps, period: "30d" });
    const detail = await loaded(el);
    const api = await apiData(b, `/journey/links/${b.linkId}/funnel`, { steps, period: "30d" });
    expect(detail).toEqual(api);
    const t = table(el, "Funnel steps");
    expect(t[0]).toEqual(["Step", "Visitors", "From previous step", "From first step"]);
    const first = api.steps[0].visitors;
    expect(t.slice(1)).toEqual(
      api.steps.map((s: any) => [s.step_name, en(s.visitors), pct(s.conversion_rate), pct((s.visitors / first) * 100)]),
    );
    expect(t[1][2]).toBe("100%");
    const last = api.steps[api.steps.length - 1];
    expect(stat(el, "Visitors")).toBe(en(api.total_visitors));
    expect(statNote(el, "Visitors")).toBe("Visitors are counted once per period: a visitor_id is the site's own stable id.");
    expect(stat(el, `Completed ${last.step_name}`)).toBe(en(last.visitors));
    expect(stat(el, "Overall conversion")).toBe(pct((last.visitors / first) * 100));
    const svg = charts(el)[0];
    expect(svg.querySelectorAll("rect.bar").length).toBe(api.steps.length);
    expect(svg.getAttribute("aria-label")).toContain(
      `${api.steps[1].step_name} ${en(api.steps[1].visitors)} (${pct(api.steps[1].conversion_rate)} of the previous step)`,
    );
  });

  test("sends steps, period and the link id", async () => {
    const spy = spyFetch();
    try {
      const el = mount("svc-funnel", {
        "api-base": b.base,
        "api-key": b.keys.full,
        "link-id": b.linkId,
        steps: " page_view , signup ,",
        period: "7d",
      });
      await loaded(el);
      const u = spy.urls[0];
      expect(u.pathname).toEndWith(`/journey/links/${b.linkId}/funnel`);
      expect(u.searchParams.get("steps")).toBe("page_view,signup");
      expect(u.searchParams.get("period")).toBe("7d");
      const next = settled(el);
      el.setAttribute("steps", "page_view,signup,purchase");
      await next;
      expect(spy.urls.length).toBe(2);
      expect(table(el).length).toBe(4);
    } finally {
      spy.restore();
    }
  });

  test("asks for link-id and steps before fetching anything", async () => {
    const spy = spyFetch();
    try {
      const el = mount("svc-funnel", { "api-base": b.base, "api-key": b.keys.full, steps: "a,b" });
      const s = await settled(el);
      expect(s.type).toBe("svc-error");
      expect(s.detail.code).toBe("MISSING_ATTRIBUTE");
      expect(text(el)).toContain("set the link-id attribute");
      const next = settled(el);
      el.setAttribute("link-id", b.linkId);
      el.removeAttribute("steps");
      expect((await next).detail.message).toContain("Set the steps attribute");
      expect(spy.urls.length).toBe(0);
    } finally {
      spy.restore();
    }
  });

  test("a link without journey events shows the empty state", async () => {
    const el = mount("svc-funnel", {
      "api-base": b.base,
      "api-key": b.keys.full,
      "link-id": b.quietLinkId,
      steps: b.funnelSteps.join(","),
    });
    await loaded(el);
    expect(el.state).toBe("empty");
    expect(text(el)).toContain(`No visitor reached "${b.funnelSteps[0]}" in the last 30d.`);
  });

  test("an unknown link is a 404 with the API message", async () => {
    const el = mount("svc-funnel", { "api-base": b.base, "api-key": b.keys.full, "link-id": b.unknownLinkId, steps: "a,b" });
    const s = await settled(el);
    expect(s.type).toBe("svc-error");
    expect(s.detail.status).toBe(404);
    expect(text(el)).toContain(s.detail.message);
    expect(text(el)).toContain("check the link-id attribute");
  });
});
