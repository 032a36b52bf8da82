// Each event type the tracker emits, SPA navigation and session rotation (source, fake time).
import { afterEach, describe, expect, test } from "bun:test";
import {
  CLICK,
  ENDPOINT,
  KEY,
  LINK,
  T0,
  closeWindows,
  makeEnv,
  ofType,
  reload,
  scrollTo,
  sent,
  setHidden,
  setScreenWidth,
  start,
} from "./helpers";

afterEach(closeWindows);

describe("page_view", () => {
  test("is sent on load with the page, session, device and language", async () => {
    const env = makeEnv("https://shop.example/pricing?plan=pro#faq");
    env.win.document.title = "Pricing";
    start(env);
    await env.clock.advance(1000);
    expect(env.calls).toHaveLength(1);
    const [c] = env.calls;
    expect(c.url).toBe(ENDPOINT);
    expect(c.init.method).toBe("POST");
    expect(c.init.keepalive).toBe(true);
    // The compact form: a JSON array with the idempotency key first, sent as text/plain (no Content-Type).
    expect(c.headers).toEqual({ "X-API-Key": KEY });
    expect(JSON.parse(String(c.init.body))[0]).toBe(c.key);
    expect(c.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.events).toHaveLength(1);
    const e = c.events[0];
    expect(e).toMatchObject({
      link_id: LINK,
      event_type: "page_view",
      page_url: "https://shop.example/pricing?plan=pro#faq",
      page_title: "Pricing",
      device_type: "desktop",
      timestamp: new Date(T0).toISOString(),
      properties: { language: "en-US" },
    });
    expect(e.visitor_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(e.session_id).toMatch(/^[0-9a-f-]{36}$/);
    // nothing else about the person
    expect(Object.keys(e).sort()).toEqual(
      ["device_type", "event_type", "link_id", "page_title", "page_url", "properties", "session_id", "timestamp", "visitor_id"].sort(),
    );
  });

  test("device_type follows the screen width", async () => {
    const types: string[] = [];
    for (const width of [390, 767, 768, 1023, 1024, 1920]) {
      const env = makeEnv();
      setScreenWidth(env, width);
      start(env);
      await env.clock.advance(1000);
      types.push(sent(env)[0].device_type!);
    }
    expect(types).toEqual(["mobile", "mobile", "tablet", "tablet", "desktop", "desktop"]);
  });
});

describe("scroll_depth", () => {
  test("25/50/75/100 % are each sent once per page", async () => {
    const env = makeEnv();
    start(env);
    scrollTo(env, 0); // viewport bottom at 25 %
    scrollTo(env, 0);
    scrollTo(env, 1400); // 60 %
    scrollTo(env, 200); // back up: nothing new
    scrollTo(env, 3000); // bottom: 75 and 100
    scrollTo(env, 3000);
    await env.clock.advance(1000);
    expect(ofType(env, "scroll_depth").map((e) => e.scroll_percent)).toEqual([25, 50, 75, 100]);
  });

  test("a jump to the bottom sends every threshold, and a new page starts over", async () => {
    const env = makeEnv();
    start(env);
    scrollTo(env, 3000);
    env.w.history.pushState(null, "", "/next");
    scrollTo(env, 1000); // 50 % of the new page
    await env.clock.advance(1000);
    const depth = ofType(env, "scroll_depth").map((e) => [new URL(e.page_url).pathname, e.scroll_percent]);
    expect(depth).toEqual([
      ["/landing", 25],
      ["/landing", 50],
      ["/landing", 75],
      ["/landing", 100],
      ["/next", 25],
      ["/next", 50],
    ]);
  });
});

describe("time_on_page", () => {
  test("counts visible time only and is sent, with a flush, when the page is hidden", async () => {
    const env = makeEnv();
    start(env);
    await env.clock.advance(10_000); // visible 10 s (page_view flushed at 1 s)
    setHidden(env, true);
    await env.clock.advance(0);
    expect(ofType(env, "time_on_page").map((e) => e.time_on_page)).toEqual([10]);
    expect(env.calls).toHaveLength(2); // the hide flushed at once

    await env.clock.advance(60_000); // hidden: not counted
    setHidden(env, false);
    await env.clock.advance(5_000);
    env.win.dispatchEvent(new env.win.Event("pagehide"));
    await env.clock.advance(0);
    // the second report carries the visible seconds since the first one
    expect(ofType(env, "time_on_page").map((e) => e.time_on_page)).toEqual([10, 5]);
    expect(ofType(env, "time_on_page")[1].timestamp).toBe(new Date(T0 + 75_000).toISOString());
  });

  test("pagehide right after visibilitychange does not report twice; under half a second is not reported", async () => {
    const env = makeEnv();
    start(env);
    await env.clock.advance(3_000);
    setHidden(env, true);
    env.win.dispatchEvent(new env.win.Event("pagehide"));
    await env.clock.advance(0);
    expect(ofType(env, "time_on_page").map((e) => e.time_on_page)).toEqual([3]);

    const quick = makeEnv();
    start(quick);
    await quick.clock.advance(400);
    quick.win.dispatchEvent(new quick.win.Event("pagehide"));
    await quick.clock.advance(2000);
    expect(ofType(quick, "time_on_page")).toEqual([]);
  });

  test("a page that loads hidden counts from when it becomes visible", async () => {
    const env = makeEnv();
    Object.defineProperty(env.win.document, "hidden", { value: true, configurable: true });
    start(env);
    await env.clock.advance(20_000);
    setHidden(env, false);
    await env.clock.advance(7_000);
    setHidden(env, true);
    await env.clock.advance(0);
    expect(ofType(env, "time_on_page").map((e) => e.time_on_page)).toEqual([7]);
  });
});

describe("custom and conversion", () => {
  test("track() sends a custom event with its name and properties", async () => {
    const env = makeEnv();
    const t = start(env);
    t.track("signup_click", { plan: "pro", seats: 3, trial: true, ref: null });
    t.track("bare");
    await env.clock.advance(1000);
    const [a, b] = ofType(env, "custom");
    expect(a).toMatchObject({
      link_id: LINK,
      event_name: "signup_click",
      page_url: "https://shop.example/landing",
      properties: { plan: "pro", seats: 3, trial: true, ref: null },
    });
    expect(b.event_name).toBe("bare");
    expect("properties" in b).toBe(false);
  });

  test("conversion() sends event_name and conversion_name, revenue in integer cents, currency upper-case", async () => {
    const env = makeEnv();
    const t = start(env);
    t.conversion("purchase", { revenue_cents: 4999, currency: "eur", properties: { order: "A-17" } });
    t.conversion("lead");
    t.conversion("odd", { revenue_cents: 12.6 });
    await env.clock.advance(1000);
    const [p, l, o] = ofType(env, "conversion");
    expect(p).toMatchObject({
      event_type: "conversion",
      event_name: "purchase",
      conversion_name: "purchase",
      revenue_cents: 4999,
      currency: "EUR",
      properties: { order: "A-17" },
    });
    expect(l).toMatchObject({ event_name: "lead", conversion_name: "lead" });
    expect("revenue_cents" in l || "currency" in l || "properties" in l).toBe(false);
    expect(o.revenue_cents).toBe(13);
  });
});

describe("SPA navigation", () => {
  test("pushState sends the previous page time_on_page and a new page_view", async () => {
    const env = makeEnv("https://shop.example/");
    start(env);
    await env.clock.advance(4_000);
    env.win.document.title = "Docs";
    env.w.history.pushState({ n: 1 }, "", "/docs?x=1");
    await env.clock.advance(1_000);
    const e = sent(env).map((x) => [x.event_type, x.page_url, x.time_on_page ?? null]);
    expect(e).toEqual([
      ["page_view", "https://shop.example/", null],
      ["time_on_page", "https://shop.example/", 4],
      ["page_view", "https://shop.example/docs?x=1", null],
    ]);
    expect(sent(env)[2].page_title).toBe("Docs");
    expect(env.win.history.state).toEqual({ n: 1 }); // the patched method still does its job
  });

  test("replaceState and popstate count only when the URL (without the hash) changes", async () => {
    const env = makeEnv("https://shop.example/a");
    start(env);
    env.w.history.replaceState({ s: 1 }, ""); // same URL
    env.w.history.pushState(null, "", "/a#section"); // hash only
    env.w.history.replaceState(null, "", "/b"); // a navigation
    env.w.history.pushState(null, "", "/c");
    env.w.history.back(); // happy-dom: location → /b, then popstate
    await env.clock.advance(50);
    env.win.dispatchEvent(new env.win.PopStateEvent("popstate"));
    await env.clock.advance(1000);
    expect(ofType(env, "page_view").map((e) => new URL(e.page_url).pathname)).toEqual(["/a", "/b", "/c", "/b"]);
  });
});

describe("session", () => {
  test("keeps the session id while active and rotates it after 30 minutes without events", async () => {
    const env = makeEnv();
    const t = start(env);
    await env.clock.advance(29 * 60_000);
    t.track("still-here"); // 29 min after the page view: same session
    await env.clock.advance(30 * 60_000 + 1); // 30 min + 1 ms of silence
    t.track("back");
    await env.clock.advance(1000);
    const [view, still, back] = sent(env);
    expect(still.session_id).toBe(view.session_id!);
    expect(back.session_id).not.toBe(view.session_id!);
    expect(back.visitor_id).toBe(view.visitor_id); // the visitor stays
  });

  test("is shared by page loads of the same browser within 30 minutes", async () => {
    const env = makeEnv("https://shop.example/?svc_ref=" + LINK + "." + CLICK);
    start(env);
    await env.clock.advance(1000);
    const next = reload(env, "https://shop.example/other");
    start(next);
    await next.clock.advance(1000);
    expect(sent(next)[0].session_id).toBe(sent(env)[0].session_id!);
  });
});
