// Issue 8: /dashboard of our real server in headless Chromium, driven like a person would (paste the
// key, pick link, range and funnel steps, switch the theme), every widget showing the API's numbers.
// Writes test-artifacts/dashboard-{light,dark}.png (and docs/dashboard.png with UPDATE_DOCS_SCREENSHOT=1).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { startBackend, type Backend } from "../widgets/backend";
import { launchBrowser, watchErrors } from "./browser";

const ROOT = join(import.meta.dir, "..", "..");
const ARTIFACTS = join(ROOT, "test-artifacts");
let b: Backend;
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
  b = await startBackend({ baseUrl: "https://sho.rt" });
});
afterAll(async () => {
  await browser?.close();
  await b?.stop();
});

const api = async (path: string, query: Record<string, string | number> = {}) => {
  const url = new URL(b.base + path);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  const body = (await (await fetch(url, { headers: { "x-api-key": b.keys.full } })).json()) as any;
  if (!body.success) throw new Error(`${path}: ${JSON.stringify(body)}`);
  return body.data;
};

interface Shown {
  state: string;
  stats: Record<string, string>;
  tables: string[][][];
  labels: string[];
}

/** What widget #id shows: its state, stat values by label, table rows, chart labels. */
const shown = (page: Page, id: string): Promise<Shown> =>
  page.evaluate((id) => {
    const el = document.getElementById(id) as any;
    const root = el.shadowRoot as ShadowRoot;
    const stats: Record<string, string> = {};
    for (const dt of root.querySelectorAll("dt")) stats[dt.textContent!.trim()] = dt.nextElementSibling?.textContent?.trim() ?? "";
    const tables = [...root.querySelectorAll("table")].map((t) =>
      [...t.querySelectorAll("tbody tr")].map((tr) => [...tr.children].map((c) => c.textContent!.trim())),
    );
    const labels = [...root.querySelectorAll("svg.chart")].map((s) => s.getAttribute("aria-label") ?? "");
    return { state: el.state, stats, tables, labels };
  }, id);

const settledAll = (page: Page) =>
  page.waitForFunction(
    () => {
      const all = [...document.querySelectorAll("#widgets > *")] as any[];
      return all.length === 10 && all.every((w) => w.state === "loaded" || w.state === "empty");
    },
    undefined,
    { timeout: 20_000 },
  );

const en = (n: number) => new Intl.NumberFormat("en-US").format(n);
const usd = (n: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(n);
const pct = (v: number) => new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 }).format(v / 100);

describe("/dashboard in Chromium against the real server", () => {
  test("key, link, range and steps drive every widget; light and dark screenshots", async () => {
    const context = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      colorScheme: "light",
      locale: "en-US",
      timezoneId: "UTC",
    });
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${b.origin}/dashboard`);
    await expect(page.textContent("#status")).resolves.toContain("Paste a read-only API key");

    await page.fill("#api-key", b.keys.full);
    await page.click("#save-key");
    await page.waitForSelector("#link[data-state=ready]");
    const links = await api("/links", { per_page: 100 });
    const options = await page.$$eval("#link option", (os) => os.map((o) => [(o as HTMLOptionElement).value, o.textContent]));
    expect(options).toEqual([["", "All links"], ...links.map((l: any) => [l.id, `${l.short_url} — ${l.title}`])]);
    expect(links.every((l: any) => l.short_url.startsWith("https://sho.rt/"))).toBe(true);

    await page.selectOption("#link", b.linkId);
    await page.selectOption("#range", "30");
    await page.fill("#steps", "page_view,signup,purchase");
    await page.dispatchEvent("#steps", "change");
    await settledAll(page);
    expect(await page.getAttribute("#w-funnel", "steps")).toBe("page_view,signup,purchase");
    expect(await page.getAttribute("#w-link-stats", "link-id")).toBe(b.linkId);

    // Each widget shows what the API answers for the same query: the picked link's numbers, not the account's.
    const summary = (await api("/analytics/summary", { days: 30, link_id: b.linkId })).analytics;
    const s = await shown(page, "w-summary");
    expect(s.stats["Clicks, last 30 days"]).toBe(en(summary.total_clicks));
    expect(s.stats["Visitors"]).toBe(en(summary.unique_visitors));
    expect(s.stats["Links with clicks"]).toBe(en(summary.active_links));
    const account = (await api("/analytics/summary", { days: 30 })).analytics;
    expect(summary.total_clicks).toBeGreaterThan(0);
    expect(summary.total_clicks).toBeLessThan(account.total_clicks);

    const series = (await api("/analytics/timeseries", { days: 30, link_id: b.linkId })).analytics;
    const ts = await shown(page, "w-timeseries");
    expect(ts.tables[0].map((r) => [r[1], r[2]])).toEqual(series.map((r: any) => [en(r.clicks), en(r.unique_visitors)]));

    const country = new Intl.DisplayNames("en-US", { type: "region" });
    const geo = (await api("/analytics/geo", { days: 30, link_id: b.linkId })).analytics;
    expect((await shown(page, "w-geo")).tables[0]).toEqual(
      geo.map((r: any) => [country.of(r.country_code), en(r.clicks), en(r.unique_visitors)]),
    );
    const refs = (await api("/analytics/referrers", { days: 30, link_id: b.linkId })).analytics;
    expect((await shown(page, "w-referrers")).tables[0]).toEqual(
      refs.map((r: any) => [r.referrer === "direct" ? "Direct / none" : r.referrer, en(r.clicks), en(r.unique_visitors)]),
    );
    const devices = (await api("/analytics/devices", { days: 30, link_id: b.linkId })).analytics;
    expect((await shown(page, "w-devices")).tables[0].map((r) => r[3])).toEqual(devices.map((r: any) => en(r.clicks)));
    const hourly = (await api("/analytics/hourly", { days: 30, link_id: b.linkId })).analytics;
    expect((await shown(page, "w-hourly")).tables[0].map((r) => r[1])).toEqual(hourly.map((r: any) => en(r.clicks)));

    const stats = await api(`/links/${b.linkId}/stats`);
    const ls = await shown(page, "w-link-stats");
    expect([ls.stats["All clicks"], ls.stats["Clicks"], ls.stats["Bot clicks"]]).toEqual([
      en(stats.total_clicks),
      en(stats.human_clicks),
      en(stats.bot_clicks),
    ]);

    const funnel = await api(`/journey/links/${b.linkId}/funnel`, { steps: "page_view,signup,purchase", period: "30d" });
    expect((await shown(page, "w-funnel")).tables[0].map((r) => [r[0], r[1], r[2]])).toEqual(
      funnel.steps.map((x: any) => [x.step_name, en(x.visitors), pct(x.conversion_rate)]),
    );

    const conv = await api("/conversions/summary", { period: "30d", link_id: b.linkId });
    const ttc = await api("/conversions/time-to-convert", { period: "30d", link_id: b.linkId });
    const c = await shown(page, "w-conversions");
    expect([c.stats["Conversions"], c.stats["Revenue"], c.stats["Conversion rate"]]).toEqual([
      en(conv.total_conversions),
      usd(conv.total_revenue),
      pct(conv.conversion_rate),
    ]);
    expect(c.tables[1]).toEqual(ttc.buckets.map((x: any) => [x.label, en(x.count)]));

    await page.locator("#steps").blur();
    mkdirSync(ARTIFACTS, { recursive: true });
    const light = join(ARTIFACTS, "dashboard-light.png");
    await page.screenshot({ path: light, fullPage: true });
    // The docs picture is refreshed on request only, so a test run leaves the tree clean.
    if (process.env.UPDATE_DOCS_SCREENSHOT) copyFileSync(light, join(ROOT, "docs", "dashboard.png"));

    // Dark theme: the page and every widget switch, nothing refetches into an error.
    await page.click("#theme");
    expect(await page.getAttribute("html", "data-theme")).toBe("dark");
    expect(await page.getAttribute("#theme", "aria-pressed")).toBe("true");
    expect(await page.$$eval("#widgets > *", (ws) => ws.every((w) => w.getAttribute("theme") === "dark"))).toBe(true);
    const bg = await page.evaluate(() => getComputedStyle(document.getElementById("w-summary")!).backgroundColor);
    expect(bg).toBe("rgb(17, 24, 39)"); // --svc-bg dark default #111827
    await settledAll(page);
    await page.screenshot({ path: join(ARTIFACTS, "dashboard-dark.png"), fullPage: true });

    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
