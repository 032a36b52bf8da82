// Loading, error and event behaviour shared by every widget.
import { describe, expect, test } from "bun:test";
import { create, errorBox, holdAnswers, loaded, mount, settled, setupWidgetTests, spyFetch, useBackend, text, tick, win } from "./helpers";

setupWidgetTests();
const b = useBackend();

// Each widget with attributes that make it fetch, and the scope its requests need.
const WIDGETS = () =>
  [
    ["svc-summary", {}, "analytics:read", "noAnalytics"],
    ["svc-timeseries", {}, "analytics:read", "noAnalytics"],
    ["svc-breakdown", { dimension: "geo" }, "analytics:read", "noAnalytics"],
    ["svc-link-stats", { "link-id": b.linkId }, "analytics:read", "noAnalytics"],
    ["svc-funnel", { "link-id": b.linkId, steps: b.funnelSteps.join(",") }, "journey:read", "noJourney"],
    ["svc-conversions", {}, "conversions:read", "noConversions"],
  ] as const;

describe("states", () => {
  test("loading is shown at once, with aria-busy, until the answer arrives", async () => {
    const held = holdAnswers();
    const el = mount("svc-summary", { "api-base": b.base, "api-key": b.keys.full });
    expect(el.state).toBe("loading");
    expect(text(el)).toContain("Loading…");
    expect(el.shadowRoot!.querySelector("section")!.getAttribute("aria-busy")).toBe("true");
    await tick();
    expect(el.state).toBe("loading");
    const done = loaded(el);
    held.release();
    await done;
    expect(el.state).toBe("loaded");
    expect(text(el)).not.toContain("Loading…");
    expect(el.shadowRoot!.querySelector("section")!.getAttribute("aria-busy")).toBe("false");
  });

  test("svc-loading then svc-load bubble out of the shadow root and are composed", async () => {
    const wrapper = create("div");
    document.body.appendChild(wrapper);
    const seen: any[] = [];
    for (const type of ["svc-loading", "svc-load", "svc-error"])
      wrapper.addEventListener(type, (e: any) => seen.push({ type: e.type, bubbles: e.bubbles, composed: e.composed, target: e.target }));
    const el = create("svc-summary");
    el.setAttribute("api-base", b.base);
    el.setAttribute("api-key", b.keys.full);
    wrapper.appendChild(el);
    const data = await loaded(el);
    expect(seen.map((s) => s.type)).toEqual(["svc-loading", "svc-load"]);
    expect(seen.every((s) => s.bubbles && s.composed && s.target === el)).toBe(true);
    expect(data.analytics.total_clicks).toBeGreaterThan(0);
    expect(el.data).toEqual(data);
    wrapper.remove();
  });

  test("a burst of attribute changes makes one request", async () => {
    const spy = spyFetch();
    try {
      const el = mount("svc-summary", { "api-base": b.base, "api-key": b.keys.full });
      el.setAttribute("days", "7");
      el.setAttribute("bot-filter", "all");
      el.setAttribute("days", "90");
      await loaded(el);
      await tick();
      expect(spy.urls.length).toBe(1);
      expect(spy.urls[0].searchParams.get("days")).toBe("90");
      expect(spy.urls[0].searchParams.get("bot_filter")).toBe("all");
      // setting an attribute to the value it has, or an unobserved one, fetches nothing
      el.setAttribute("days", "90");
      el.setAttribute("theme", "dark");
      await tick();
      await tick();
      expect(spy.urls.length).toBe(1);
    } finally {
      spy.restore();
    }
  });

  test("a change while a request is in flight drops the stale answer", async () => {
    const held = holdAnswers();
    const el = mount("svc-timeseries", { "api-base": b.base, "api-key": b.keys.full, days: 7 });
    await tick();
    el.setAttribute("days", "14");
    const events: string[] = [];
    el.addEventListener("svc-load", () => events.push("load"));
    const done = loaded(el);
    await tick();
    held.release();
    await done;
    await held.settled(); // the stale answer too has reached its widget
    expect(events).toEqual(["load"]);
    expect(el.shadowRoot!.querySelectorAll("tbody tr").length).toBe(14);
  });

  test("invalid attribute values fall back to the defaults", async () => {
    const spy = spyFetch();
    try {
      const el = mount("svc-summary", { "api-base": b.base + "/", "api-key": b.keys.full, days: "abc", "bot-filter": "robots" });
      await loaded(el);
      expect(el.days).toBe(30);
      expect(el.botFilter).toBe("real");
      expect(spy.urls[0].href).toStartWith(b.base + "/analytics/summary?");
      const f = mount("svc-funnel", { period: "1y" });
      expect(f.period).toBe("30d");
    } finally {
      spy.restore();
    }
  });

  test("api-base defaults to this origin + /public-api/v1", async () => {
    const spy = spyFetch();
    const url = win.location.href;
    win.happyDOM.setURL(b.origin + "/dashboard");
    try {
      const el = mount("svc-summary", { "api-key": b.keys.full });
      expect(el.apiBase).toBe(b.origin + "/public-api/v1");
      await loaded(el);
      expect(spy.urls[0].origin).toBe(b.origin);
    } finally {
      win.happyDOM.setURL(url);
      spy.restore();
    }
  });
});

describe("errors", () => {
  test("no key: 401 with the API message and what to do", async () => {
    for (const [tag, attrs] of WIDGETS()) {
      const el = mount(tag, { "api-base": b.base, ...attrs });
      const s = await settled(el);
      expect(s.type).toBe("svc-error");
      expect(s.detail.status).toBe(401);
      expect(typeof s.detail.code).toBe("string");
      expect(s.detail.message.length).toBeGreaterThan(0);
      const box = errorBox(el)!;
      expect(box).toContain(s.detail.message);
      expect(box).toContain("The API key is missing or invalid");
      expect(el.state).toBe("error");
    }
  });

  test("unknown key: 401", async () => {
    const el = mount("svc-summary", { "api-base": b.base, "api-key": b.keys.invalid });
    const s = await settled(el);
    expect(s.detail.status).toBe(401);
    expect(errorBox(el)).toContain("The API key is missing or invalid");
  });

  test("a key without the scope: 403 naming the scope each widget needs", async () => {
    for (const [tag, attrs, scope, key] of WIDGETS()) {
      const el = mount(tag, { "api-base": b.base, "api-key": b.keys[key], ...attrs });
      const s = await settled(el);
      expect(s.type).toBe("svc-error");
      expect(s.detail.status).toBe(403);
      const box = errorBox(el)!;
      expect(box).toContain(s.detail.message);
      expect(box).toContain(`lacks the ${scope} scope`);
    }
  });

  test("a key used from an address outside its allowlist: 403 explained", async () => {
    const el = mount("svc-summary", { "api-base": b.base, "api-key": b.keys.ipBlocked });
    const s = await settled(el);
    expect(s.detail.status).toBe(403);
    expect(errorBox(el)).toContain(s.detail.message);
    expect(errorBox(el)).toMatch(/allowlist/);
  });

  test("rate limited: the string error form, its message and Retry-After", async () => {
    const el = mount("svc-summary", { "api-base": b.base, "api-key": b.keys.rateLimited });
    const s = await settled(el);
    expect(s.detail).toMatchObject({ status: 429, code: "RATE_LIMIT_EXCEEDED" });
    expect(typeof s.detail.message).toBe("string");
    expect(errorBox(el)).toContain(s.detail.message);
    expect(s.detail.retryAfter).toBeGreaterThan(0); // from the Retry-After header
    expect(errorBox(el)).toContain(`try again in ${s.detail.retryAfter} s`);
  });

  test("fixing the key recovers", async () => {
    const el = mount("svc-summary", { "api-base": b.base, "api-key": b.keys.invalid });
    await settled(el);
    expect(el.state).toBe("error");
    const next = settled(el);
    el.setAttribute("api-key", b.keys.full);
    expect((await next).type).toBe("svc-load");
    expect(errorBox(el)).toBeUndefined();
  });
});
