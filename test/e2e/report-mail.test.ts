// The weekly report's HTML as a phone's mail client shows it: rendered by Chromium 390 px wide, nothing
// wider than the screen (no sideways scrolling), even with a long unbroken link title, referrer and page URL. The
// screenshot goes to test-artifacts/ (and to docs/ with UPDATE_DOCS_SCREENSHOT=1).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { reportMail } from "../../server/alerts/mails";
import type { ReportFigures } from "../../server/alerts/report-data";
import { launchBrowser } from "./browser";

const ROOT = join(import.meta.dir, "..", "..");
const SHOT = join(ROOT, "test-artifacts", "notifications-report-390.png");
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(() => browser?.close());

const figures: ReportFigures = {
  period: { frequency: "weekly", start: "2026-11-16", end: "2026-11-23" },
  previous: { frequency: "weekly", start: "2026-11-09", end: "2026-11-16" },
  clicks: { current: 128_450, previous: 101_200, change_percent: 26.93 },
  visitors: { current: 84_310, previous: 90_002, change_percent: -6.32 },
  conversions: { current: 1_204, previous: 0, change_percent: null },
  revenue: { current: 48_210.5, previous: 39_870.25, change_percent: 20.92 },
  top_links: [
    { name: "Spring sale – landing page for the newsletter campaign (/spring-2026)", clicks: 61_200 },
    { name: "/averyveryverylongshortcodewithoutanyspacesatallthatgoesonandon", clicks: 30_004 },
    { name: "Docs (/docs)", clicks: 12_000 },
  ],
  top_sources: [
    { name: "news.ycombinator.com", clicks: 40_000 },
    { name: "a-very-long-subdomain-name.of-a-referrer-host.example-with-no-breaks.com", clicks: 9_000 },
    { name: "direct", clicks: 8_000 },
  ],
  top_countries: [
    { name: "US", clicks: 50_000 },
    { name: "DE", clicks: 20_000 },
  ],
  top_pages: [
    {
      url: "https://shop.example/spring/landing?utm_source=newsletter&utm_campaign=a-very-long-campaign-name-without-breaks",
      views: 22_310,
    },
    { url: "https://shop.example/pricing", views: 9_870 },
    { url: "https://shop.example/", views: 4_002 },
  ],
};

test("the report fits a 390 px wide mail client without scrolling sideways", async () => {
  const mail = reportMail("someone.with.a.long.address@example.com", {
    accountName: "Acme Incorporated Worldwide",
    figures,
    unsubscribeUrl: `https://links.example/unsubscribe/uns_${"x".repeat(43)}`,
  });
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
  await page.setContent(mail.html!);
  const overflow = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > width + 0.5)
      .map((e) => `${e.tagName} ${Math.round(e.getBoundingClientRect().right)}`);
    return { width, scrollWidth: document.documentElement.scrollWidth, wide };
  });
  expect(overflow.width).toBe(390);
  expect(overflow.wide).toEqual([]);
  expect(overflow.scrollWidth).toBeLessThanOrEqual(390);
  // The four figures are side by side in pairs, and every change is shown.
  const text = await page.locator("body").innerText();
  for (const s of [
    "128,450",
    "+26.93%",
    "-6.32%",
    "new",
    "48,210.50",
    "Top links",
    "Top sources",
    "Top countries",
    "Top pages (views)",
    "22,310",
    "Unsubscribe",
  ])
    expect(text).toContain(s);
  mkdirSync(join(ROOT, "test-artifacts"), { recursive: true });
  await page.screenshot({ path: SHOT, fullPage: true });
  if (process.env.UPDATE_DOCS_SCREENSHOT) copyFileSync(SHOT, join(ROOT, "docs", "notifications-report-390.png"));
  await page.close();
}, 60_000);
