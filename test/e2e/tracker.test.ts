// Issue 7 "Done when": the built t.js in real headless Chromium, on a customer site served from a
// second loopback origin, reports a visit that arrived through a track_conversions short link, and the
// journey and conversion reports of our real server show exactly those events, attributed to the
// link and to the click.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { createTestApp, listen, type TestApp } from "../helpers/app";
import { closeTab, launchBrowser, watchErrors } from "./browser";
import { pollUntil, startTrackedSite, type Site } from "./site";

const P = "/public-api/v1";
let t: TestApp;
let api: { url: string; stop(): Promise<void> };
let site: Site;
let browser: Browser;
let readKey: string;
let writeKey: string;

beforeAll(async () => {
  browser = await launchBrowser();
  t = await createTestApp();
  const owner = await t.createAccount({ scopes: ["links:write", "links:read", "journey:read", "conversions:read", "analytics:read"] });
  readKey = owner.key;
  const key = await t.admin("POST", `/accounts/${owner.accountId}/keys`, { name: "site tracker", scopes: ["journey:write"] });
  writeKey = key.body.data.key;
  api = listen(t);
  site = startTrackedSite(api.url, writeKey);
});
afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await api?.stop();
  await t?.close();
});

const get = async (path: string) => {
  const res = await fetch(`${api.url}${P}${path}`, { headers: { "x-api-key": readKey } });
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
};

describe("t.js in Chromium against the real server", () => {
  test("short link → landing → scroll → SPA and link navigation → signup and purchase → close: exactly those events, attributed", async () => {
    const created = await t.call(`${P}/links`, {
      method: "POST",
      key: readKey,
      json: { url: `${site.origin}/landing?campaign=spring`, title: "Spring sale", description: "e2e", track_conversions: true },
    });
    expect(created.status).toBe(201);
    const link = created.body.data;

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors = watchErrors(page);
    const posts: number[] = [];
    page.on("response", (r) => {
      if (r.url().endsWith("/journey/events") && r.request().method() === "POST") posts.push(r.status());
    });

    // The redirect: our server answers 302 to the landing page with svc_ref=<link_id>.<click_id>.
    const redirect = page.waitForResponse((r) => r.url().startsWith(`${api.url}/${link.short_code}`));
    await page.goto(`${api.url}/${link.short_code}`);
    expect((await redirect).status()).toBe(302);
    const landed = new URL((await redirect).headers().location);
    expect(landed.origin + landed.pathname).toBe(`${site.origin}/landing`);
    const [refLink, clickId] = landed.searchParams.get("svc_ref")!.split(".");
    expect(refLink).toBe(link.id);

    // The tracker took svc_ref out of the address bar and kept the other parameters.
    await page.waitForFunction(() => typeof (window as any).svc?.track === "function");
    expect(page.url()).toBe(`${site.origin}/landing?campaign=spring`);
    expect(await page.evaluate(() => location.search)).not.toContain("svc_ref");

    // Scroll down the 4000 px page in steps: the bottom of the viewport passes 30, 55, 80 % of it
    // and then reaches its end, so 25, 50, 75 and 100 % are each crossed by one scroll.
    for (const share of [0.3, 0.55, 0.8, 1]) {
      await page.evaluate((f) => window.scrollTo(0, f * document.documentElement.scrollHeight - innerHeight), share);
      await page.waitForTimeout(150);
    }
    await page.waitForTimeout(900);

    // A single-page-app navigation, then a real link to the second page.
    await page.evaluate(() => history.pushState({}, "", "/landing/step-2"));
    await page.waitForTimeout(1200);
    await Promise.all([page.waitForURL(`${site.origin}/page2`), page.click("#to-page2")]);
    await page.waitForFunction(() => typeof (window as any).svc?.track === "function");
    await page.evaluate(() => {
      const svc = (window as any).svc;
      svc.track("signup", { plan: "pro" });
      svc.conversion("purchase", { revenue_cents: 1999, currency: "USD" });
    });
    // Closed before the 1 s batching delay is over: the signup and the purchase leave with the
    // pagehide / visibilitychange flush (keepalive), together with page 2's visible time.
    await page.waitForTimeout(700);
    await closeTab(page);

    // Everything the page posted (the last batch leaves with keepalive as the page closes) lands.
    const expectedCount = 12;
    const events = await pollUntil(
      async () => {
        await t.flush();
        const list = await get(`/journey/links/${link.id}/events?limit=200`);
        return list.length >= expectedCount ? list : null;
      },
      15_000,
      "12 journey events",
    );
    expect(errors).toEqual([]);
    expect(posts.every((s) => s === 202)).toBe(true);

    const landing = `${site.origin}/landing?campaign=spring`;
    const step2 = `${site.origin}/landing/step-2`;
    const page2 = `${site.origin}/page2`;
    const byTime = [...events].sort((a: any, b: any) => a.timestamp.localeCompare(b.timestamp) || order(a) - order(b));
    const seen = byTime.map((e: any) => [e.event_type, e.page_url, e.event_name ?? e.scroll_percent ?? null]);
    expect(seen.filter((e) => e[0] !== "time_on_page")).toEqual([
      ["page_view", landing, null],
      ["scroll_depth", landing, 25],
      ["scroll_depth", landing, 50],
      ["scroll_depth", landing, 75],
      ["scroll_depth", landing, 100],
      ["page_view", step2, null],
      ["page_view", page2, null],
      ["custom", page2, "signup"],
      ["conversion", page2, "purchase"],
    ]);
    // Visible time: one report per page view (each lasted over a second), none of them empty.
    const timed = events.filter((e: any) => e.event_type === "time_on_page");
    expect(timed.map((e: any) => e.page_url).sort()).toEqual([landing, step2, page2].sort());
    expect(timed.every((e: any) => e.time_on_page >= 1)).toBe(true);
    expect(events.length).toBe(expectedCount);

    // Attribution: the link, and the click of the redirect as the visitor.
    expect(events.every((e: any) => e.link_id === link.id && e.visitor_id === clickId)).toBe(true);
    const conversion = events.find((e: any) => e.event_type === "conversion");
    expect(conversion).toMatchObject({ revenue_cents: 1999, currency: "USD", conversion_name: "purchase" });
    expect(events.find((e: any) => e.event_type === "custom").properties).toEqual({ plan: "pro" });
    const clicks = await t.runtime.deps.ch.query<{ click: string; link: string }>(
      `SELECT toString(click_id) AS click, toString(link_id) AS link FROM ${t.runtime.deps.ch.table("clicks")} WHERE click_id = {id:UUID}`,
      { id: clickId },
    );
    expect(clicks).toEqual([{ click: clickId, link: link.id }]);

    // The reports over the same events.
    const summary = await get(`/journey/links/${link.id}/summary`);
    expect(summary).toMatchObject({ total_visitors: 1, total_sessions: 1, total_events: expectedCount });
    expect(summary.top_events).toEqual(
      expect.arrayContaining([
        { name: "signup", count: 1 },
        { name: "purchase", count: 1 },
      ]),
    );
    expect(summary.top_pages.map((p: any) => p.url).sort()).toEqual([landing, page2, step2].sort());

    const funnel = await get(`/journey/links/${link.id}/funnel?steps=page_view,signup,purchase&period=24h`);
    expect(funnel).toEqual({
      steps: [
        { step_name: "page_view", visitors: 1, conversion_rate: 100 },
        { step_name: "signup", visitors: 1, conversion_rate: 100 },
        { step_name: "purchase", visitors: 1, conversion_rate: 100 },
      ],
      total_visitors: 1,
    });

    const conv = await get(`/conversions/summary?link_id=${link.id}&period=24h`);
    expect(conv).toEqual({
      total_conversions: 1,
      unique_converters: 1,
      total_revenue: 19.99,
      average_order_value: 19.99,
      conversion_rate: 100,
    });
    // Time to convert runs from the click (in ClickHouse `clicks`) to the purchase: a few seconds.
    const ttc = await get(`/conversions/time-to-convert?link_id=${link.id}&period=24h`);
    expect(ttc.buckets.map((b: any) => b.count)).toEqual([1, 0, 0, 0]);
    expect(ttc.average_seconds).toBeGreaterThan(2);
    expect(ttc.average_seconds).toBeLessThan(60);
    expect(ttc.median_seconds).toBe(ttc.average_seconds);
  }, 90_000);
});

// Events of one batch can share a millisecond: order them as the tracker emits them.
const ORDER = ["time_on_page", "page_view", "scroll_depth", "custom", "conversion"];
const order = (e: any) => ORDER.indexOf(e.event_type);
