// Attribution hand-off (svc_ref), the data-link-id fallback, and the cases that send nothing:
// no link id, Do Not Track / Global Privacy Control with respectDnt, excluded paths.
import { afterEach, describe, expect, test } from "bun:test";
import { CLICK, LINK, closeWindows, makeEnv, ofType, reload, sent, setNavigator, start } from "./helpers";

afterEach(closeWindows);

const OTHER_LINK = "0a0b0c0d-1111-4222-8333-444455556666";
const ref = `${LINK}.${CLICK}`;

describe("svc_ref hand-off", () => {
  test("is parsed, stored first-party and removed from the address bar", async () => {
    const env = makeEnv(`https://shop.example/p?utm_source=x&svc_ref=${ref}&q=a%20b#top`);
    const replaced: unknown[][] = [];
    const orig = env.win.history.replaceState.bind(env.win.history);
    env.win.history.replaceState = (...a: any[]) => {
      replaced.push(a);
      return (orig as any)(...a);
    };
    start(env, { linkId: OTHER_LINK }); // the hand-off beats data-link-id
    expect(replaced).toHaveLength(1);
    expect(env.win.location.href).toBe("https://shop.example/p?utm_source=x&q=a%20b#top");
    expect(JSON.parse(env.win.localStorage.getItem("svc_a")!)).toEqual([LINK, CLICK]);
    expect(JSON.parse(env.win.sessionStorage.getItem("svc_a")!)).toEqual([LINK, CLICK]);
    await env.clock.advance(1000);
    const views = ofType(env, "page_view");
    expect(views).toHaveLength(1); // removing svc_ref is not a navigation
    expect(views[0]).toMatchObject({ link_id: LINK, visitor_id: CLICK, page_url: "https://shop.example/p?utm_source=x&q=a%20b#top" });
  });

  test("keeps the other parameters exactly, wherever svc_ref stands", () => {
    for (const [from, to] of [
      [`/?svc_ref=${ref}`, "/"],
      [`/x?svc_ref=${ref}&a=1`, "/x?a=1"],
      [`/x?a=1&svc_ref=${ref}`, "/x?a=1"],
      [`/x?a=%2F&svc_ref=${ref}&b=c+d#h`, "/x?a=%2F&b=c+d#h"],
      [`/x?my_svc_ref=1&svc_ref=${ref}`, "/x?my_svc_ref=1"],
    ]) {
      const env = makeEnv("https://shop.example" + from);
      start(env);
      expect(env.win.location.href).toBe("https://shop.example" + to);
    }
  });

  test("splits on the first dot only", async () => {
    const env = makeEnv(`https://shop.example/?svc_ref=${LINK}.abc.def`);
    start(env);
    await env.clock.advance(1000);
    expect(sent(env)[0]).toMatchObject({ link_id: LINK, visitor_id: "abc.def" });
    expect(env.win.location.href).toBe("https://shop.example/");
  });

  test("later page loads without the parameter reuse the stored attribution", async () => {
    const env = makeEnv(`https://shop.example/?svc_ref=${ref}`);
    start(env);
    await env.clock.advance(1000);
    // same tab
    const next = reload(env, "https://shop.example/cart");
    start(next, { linkId: OTHER_LINK });
    await next.clock.advance(1000);
    expect(sent(next).at(-1)).toMatchObject({ link_id: LINK, visitor_id: CLICK, page_url: "https://shop.example/cart" });
    // a new tab days later: sessionStorage is gone, localStorage remains
    const later = reload(next, "https://shop.example/account");
    later.win.sessionStorage.clear();
    await later.clock.advance(3 * 86_400_000);
    start(later, { linkId: undefined });
    await later.clock.advance(1000);
    expect(sent(later).at(-1)).toMatchObject({ link_id: LINK, visitor_id: CLICK });
  });

  test("sessionStorage wins over localStorage: a tab keeps the link it arrived through", async () => {
    const env = makeEnv(`https://shop.example/?svc_ref=${ref}`);
    start(env);
    env.win.localStorage.setItem("svc_a", JSON.stringify([OTHER_LINK, "other-click"])); // another tab, newer
    const next = reload(env, "https://shop.example/2");
    start(next);
    await next.clock.advance(1000);
    expect(sent(next).at(-1)).toMatchObject({ link_id: LINK, visitor_id: CLICK });
  });

  test("a malformed svc_ref is removed and ignored", async () => {
    const env = makeEnv("https://shop.example/?svc_ref=garbage&a=1");
    start(env);
    await env.clock.advance(1000);
    expect(env.win.location.href).toBe("https://shop.example/?a=1");
    expect(sent(env)[0].link_id).toBe(LINK); // falls back to linkId
  });
});

describe("data-link-id fallback", () => {
  test("uses the configured link and a random visitor id kept in localStorage", async () => {
    const env = makeEnv();
    start(env, { linkId: OTHER_LINK });
    await env.clock.advance(1000);
    const v = sent(env)[0].visitor_id;
    expect(sent(env)[0].link_id).toBe(OTHER_LINK);
    expect(v).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(env.win.localStorage.getItem("svc_v")!)).toBe(v);
    const next = reload(env, "https://shop.example/2");
    start(next, { linkId: OTHER_LINK });
    await next.clock.advance(1000);
    expect(sent(next).at(-1)!.visitor_id).toBe(v);
  });

  test("without any link id nothing is sent and the API is inert", async () => {
    const env = makeEnv();
    const t = start(env, { linkId: undefined });
    t.track("x");
    t.conversion("y", { revenue_cents: 100 });
    t.flush();
    await env.clock.advance(60_000);
    expect(env.calls).toEqual([]);
    expect(env.win.localStorage.length).toBe(0);
  });
});

describe("privacy", () => {
  for (const [name, nav] of [
    ["Do Not Track", { doNotTrack: "1" }],
    ["Global Privacy Control", { globalPrivacyControl: true }],
  ] as const) {
    test(`${name} with respectDnt: nothing is sent or stored, svc_ref included`, async () => {
      const env = makeEnv(`https://shop.example/?svc_ref=${ref}`);
      setNavigator(env, nav);
      const t = start(env, { respectDnt: true });
      t.track("x");
      env.w.history.pushState(null, "", "/next");
      await env.clock.advance(60_000);
      expect(env.calls).toEqual([]);
      expect(env.win.localStorage.length + env.win.sessionStorage.length).toBe(0);
    });

    test(`${name} without respectDnt: tracked`, async () => {
      const env = makeEnv();
      setNavigator(env, nav);
      start(env);
      await env.clock.advance(1000);
      expect(env.calls).toHaveLength(1);
    });
  }

  test('doNotTrack "0" or "unspecified" is not an opt-out', async () => {
    const env = makeEnv();
    setNavigator(env, { doNotTrack: "0" });
    start(env, { respectDnt: true });
    await env.clock.advance(1000);
    expect(env.calls).toHaveLength(1);
  });
});

describe("exclude", () => {
  const exclude = "/admin/*, /preview,/p/*/draft,/v1.0";

  test("excluded pages send nothing, custom events and conversions included", async () => {
    for (const path of ["/admin/users", "/admin/", "/preview", "/p/42/draft", "/v1.0"]) {
      const env = makeEnv("https://shop.example" + path);
      const t = start(env, { exclude });
      t.track("x");
      t.conversion("y");
      env.win.dispatchEvent(new env.win.Event("pagehide"));
      await env.clock.advance(60_000);
      expect([path, env.calls.length]).toEqual([path, 0]);
    }
  });

  test("other pages are tracked; the match is on the whole path", async () => {
    for (const path of ["/", "/administrator", "/preview/x", "/p/42/final", "/v1x0"]) {
      const env = makeEnv("https://shop.example" + path);
      start(env, { exclude });
      await env.clock.advance(1000);
      expect([path, env.calls.length]).toEqual([path, 1]);
    }
  });

  test("SPA navigation into and out of an excluded section", async () => {
    const env = makeEnv("https://shop.example/");
    start(env, { exclude });
    await env.clock.advance(2000);
    env.w.history.pushState(null, "", "/admin/settings");
    await env.clock.advance(3000);
    env.w.history.pushState(null, "", "/shop");
    await env.clock.advance(1000);
    expect(sent(env).map((e) => [e.event_type, new URL(e.page_url).pathname])).toEqual([
      ["page_view", "/"],
      ["time_on_page", "/"],
      ["page_view", "/shop"],
    ]);
  });
});
