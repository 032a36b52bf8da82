// One bot classification for the redirect and the enrichment (server/visitors/bots.ts). Pure: no stores.
import { expect, test } from "bun:test";
import { classifyBot } from "../../server/visitors/bots";
import { wantsPreview } from "../../server/redirect/bots";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

test("unfurlers and crawlers get the preview page; people, scripts and a missing agent get the redirect", () => {
  expect(wantsPreview("Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)")).toBe(true);
  expect(wantsPreview("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")).toBe(true);
  expect(wantsPreview("WhatsApp/2.23.20.0 A")).toBe(true);
  expect(wantsPreview(CHROME)).toBe(false);
  expect(wantsPreview("curl/8.5.0")).toBe(false);
  expect(wantsPreview("python-requests/2.31.0")).toBe(false);
  expect(wantsPreview("")).toBe(false);
});

test("the redirect and the click reports agree: an agent the reports count as automation is redirected", () => {
  // The redirect once had its own, shorter list of scripts: these were flagged by isbot and got a preview
  // page there while the reports counted their clicks as automation.
  for (const ua of ["Scrapy/2.11.0 (+https://scrapy.org)", "Mozilla/5.0 (compatible; PhantomJS/2.1.1)"]) {
    expect(classifyBot(ua).bot_kind).toBe("automation");
    expect(wantsPreview(ua)).toBe(false);
  }
});
