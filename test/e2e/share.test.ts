// Issue 28: a shared dashboard in headless Chromium, as a stranger opens it: the password form, the
// widgets fed by the share's own data endpoints (no key in the page, no CSP violation), the headline
// numbers with JavaScript off, and framing allowed only for the owner's origins.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { createTestApp, listen, type TestApp } from "../helpers/app";
import { createLink, UA, visit } from "../analytics/helpers";
import { createShare, P } from "../shares/helpers";
import { launchBrowser, watchErrors } from "./browser";
import { startSite, type Site } from "./site";

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let browser: Browser;
let key: string;
let link: { id: string; short_code: string };
let allowed: Site;
let foreign: Site;
let locked: { token: string };
let open: { token: string };

beforeAll(async () => {
  browser = await launchBrowser();
  t = await createTestApp({}, { TRUST_PROXY: "true" });
  server = listen(t);
  ({ key } = await t.createAccount({ tier: "scale" }));
  link = await createLink(t, key, "https://example.com/spring");
  await t.call(`${P}/links/${link.id}`, { method: "PATCH", key, json: { title: "Spring <i>sale</i>" } });
  for (const ip of ["8.8.8.8", "81.2.69.142", "133.242.0.1", "200.160.2.3"]) await visit(t, link.short_code, { ip, ua: UA.windowsChrome });
  await t.flush();
  const frame = (token: string) => `<!doctype html><html><head><meta charset="utf-8"><title>Client</title></head><body>
<iframe id="dash" src="${server.url}/share/${token}" width="900" height="600"></iframe></body></html>`;
  // Two sites on other origins; only the first is named by the owner. Their pages are filled in once
  // the share exists (startSite reads its page table at each request).
  const allowedPages: Record<string, string> = {};
  const foreignPages: Record<string, string> = {};
  allowed = startSite(allowedPages);
  foreign = startSite(foreignPages);
  open = await createShare(t, key, {
    title: "Acme <b>report</b>",
    scope: "link",
    link_id: link.id,
    reports: ["summary", "timeseries", "geo", "link_stats"],
    allowed_origins: [allowed.origin],
  });
  locked = await createShare(t, key, {
    title: "Locked",
    scope: "link",
    link_id: link.id,
    reports: ["summary", "link_stats"],
    password: "open sesame",
  });
  allowedPages["/"] = foreignPages["/"] = frame(open.token);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await allowed?.stop();
  await foreign?.stop();
  await server?.stop();
  await t?.close();
});

// A function, not a string: the page's CSP forbids eval, and playwright evaluates strings with it.
const settled = (ids: string[]) =>
  ids.every((id) => {
    const s = (document.getElementById(id) as any)?.state;
    return s === "loaded" || s === "empty" || s === "error";
  });

describe("a shared dashboard in Chromium", () => {
  test("password first, then the widgets from the share's own data: the API's numbers, no key, no CSP violation", async () => {
    const page = await browser.newPage({ locale: "en-US" });
    const errors = watchErrors(page);
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(`${server.url}/share/${locked.token}`);
    await page.fill("#password", "not it");
    await page.click("button[type=submit]");
    await page.waitForSelector("[role=alert]");
    expect(await page.textContent("[role=alert]")).toContain("Wrong password");
    // The wrong password's 401 is the page's own answer, logged by the browser as a failed load.
    errors.length = 0;
    await page.fill("#password", "open sesame");
    await page.click("button[type=submit]");
    await page.waitForFunction(settled, ["w-summary", "w-link-stats"], { timeout: 20_000 });
    const stats = (await t.call(`${P}/links/${link.id}/stats`, { key })).body.data;
    const shown = await page.evaluate(() => {
      const stat = (id: string, label: string) =>
        [...document.getElementById(id)!.shadowRoot!.querySelectorAll("dt")]
          .find((d) => d.textContent!.trim() === label)
          ?.nextElementSibling?.textContent?.trim();
      return {
        states: ["w-summary", "w-link-stats"].map((id) => (document.getElementById(id) as any).state),
        clicks: stat("w-summary", "Clicks, last 30 days"),
        total: stat("w-link-stats", "All clicks"),
      };
    });
    expect(shown.states).toEqual(["loaded", "loaded"]);
    expect(shown.clicks).toBe(String(stats.total_clicks));
    expect(shown.total).toBe(String(stats.total_clicks));
    // Every request stayed on the share's paths (and the widgets' module); none carried a key.
    const data = requests.filter((u) => u.includes("/data/"));
    expect(data.length).toBeGreaterThan(0);
    expect(data.every((u) => u.startsWith(`${server.url}/share/${locked.token}/data/`))).toBe(true);
    expect(requests.some((u) => u.includes("/public-api/"))).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  test("the newer reports: paths, retention, realtime and conversions compared, attribution; the share's own data only", async () => {
    const events = ["v1", "v2", "v3"].map((v) => ({
      link_id: link.id,
      visitor_id: v,
      session_id: `s-${v}`,
      event_type: "page_view",
      page_url: "https://example.com/spring",
    }));
    expect((await t.call(`${P}/journey/events`, { method: "POST", key, json: { events } })).body.error ?? null).toBeNull();
    await t.flush();
    const insights = await createShare(t, key, {
      title: "Insights",
      scope: "link",
      link_id: link.id,
      reports: ["paths", "retention", "realtime", "conversions"],
      compare: "previous",
    });
    const account = await createShare(t, key, { title: "Attribution", scope: "account", reports: ["attribution", "realtime"] });
    const ids = ["w-paths", "w-retention", "w-realtime", "w-conversions"];
    for (const [s, widgets] of [
      [insights, ids],
      [account, ["w-attribution", "w-realtime"]],
    ] as const) {
      const page = await browser.newPage({ locale: "en-US" });
      const errors = watchErrors(page);
      const requests: string[] = [];
      page.on("request", (r) => requests.push(r.url()));
      await page.goto(`${server.url}/share/${s.token}`);
      await page.waitForFunction(settled, [...widgets], { timeout: 20_000 });
      const shown = await page.evaluate((ids) => {
        const stat = (id: string, label: string) => {
          const dt = [...document.getElementById(id)!.shadowRoot!.querySelectorAll("dt")].find((d) => d.textContent!.trim() === label);
          return [dt?.nextElementSibling?.textContent?.trim(), dt?.parentElement?.querySelector(".note")?.textContent?.trim()];
        };
        return {
          states: ids.map((id) => (document.getElementById(id) as any).state),
          retention: document.getElementById("w-retention") ? stat("w-retention", "New visitors") : null,
        };
      }, widgets);
      expect(shown.states.every((x: string) => x === "loaded" || x === "empty")).toBe(true);
      if (s === insights) {
        expect(shown.states).toEqual(["loaded", "loaded", "loaded", "empty"]);
        expect(shown.retention).toEqual(["3", "was 0 the previous period"]);
      }
      const data = requests.filter((u) => u.includes("/data/"));
      expect(data.length).toBeGreaterThanOrEqual(widgets.length);
      expect(data.every((u) => u.startsWith(`${server.url}/share/${s.token}/data/`))).toBe(true);
      if (s === insights) expect(data.filter((u) => u.includes("compare=previous")).length).toBeGreaterThanOrEqual(3);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  test("with JavaScript off the headline numbers are still there, the titles as text", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, locale: "en-US" });
    const page = await context.newPage();
    await page.goto(`${server.url}/share/${open.token}`);
    const stats = (await t.call(`${P}/links/${link.id}/stats`, { key })).body.data;
    expect(await page.textContent("h1")).toBe("Acme <b>report</b>");
    expect(await page.textContent("header p")).toContain("Link: Spring <i>sale</i>");
    const figure = (label: string) =>
      page.evaluate(
        (label) => [...document.querySelectorAll("dt")].find((d) => d.textContent === label)?.nextElementSibling?.textContent,
        label,
      );
    expect(await figure("All clicks")).toBe(String(stats.total_clicks));
    expect(await figure("Clicks")).toBe(String(stats.total_clicks));
    expect(await page.isVisible("dl.headline")).toBe(true);
    expect(await page.getAttribute('meta[name="robots"]', "content")).toBe("noindex, nofollow");
    await context.close();
  });

  test("an iframe shows it on the owner's origin only", async () => {
    const ok = await browser.newPage();
    await ok.goto(`${allowed.origin}/`);
    const frame = await (await ok.waitForSelector("#dash")).contentFrame();
    await frame!.waitForSelector("h1");
    expect(await frame!.textContent("h1")).toBe("Acme <b>report</b>");
    await ok.close();

    const blocked = await browser.newPage();
    const refused = new Promise<string>((resolve) =>
      blocked.on("console", (m) => {
        if (m.text().includes("frame-ancestors")) resolve(m.text());
      }),
    );
    await blocked.goto(`${foreign.origin}/`);
    expect(await refused).toContain("frame-ancestors");
    const inner = await (await blocked.waitForSelector("#dash")).contentFrame();
    expect(await inner!.content()).not.toContain("Acme");
    await blocked.close();
  });
});
