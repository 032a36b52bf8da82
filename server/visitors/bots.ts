// The one bot classification of a user agent, used by the redirect (who gets a preview page instead of
// the 302) and by the click enrichment (`is_bot`, `bot_kind`, the reports' bot_filter).
// - preview: link unfurlers, which fetch a link to render a preview card, not because a person clicked;
// - automation: scripts, HTTP libraries and headless or driven browsers, and a missing user agent;
// - crawler: anything else isbot flags.
import { isbot } from "isbot";

export type BotKind = "" | "preview" | "crawler" | "automation";

const PREVIEW =
  /slackbot|slack-imgproxy|twitterbot|facebookexternalhit|facebookcatalog|facebot|linkedinbot|discordbot|whatsapp|telegrambot|applebot|imessage|skypeuripreview|microsoftpreview|pinterestbot|redditbot|embedly|iframely|vkshare|mastodon|line-poker|kakaotalk-scrap|mattermost|bitlybot|google-pagerenderer|bingpreview|quora link preview|yahoo link preview/i;
const AUTOMATION =
  /curl|wget|python|aiohttp|httpx|go-http-client|okhttp|java\/|apache-httpclient|axios|node-fetch|undici|got \(|libwww|ruby|guzzle|php\/|powershell|postman|insomnia|httpie|scrapy|headless|phantomjs|puppeteer|playwright|selenium|webdriver|lighthouse|dart:io|reqwest|deno\/|bun\/|^$/i;

/** Pure: the same user agent always gets the same answer, so replayed clicks match. */
export function classifyBot(ua: string): { is_bot: number; bot_kind: BotKind } {
  const trimmed = ua.trim();
  if (PREVIEW.test(trimmed)) return { is_bot: 1, bot_kind: "preview" };
  if (AUTOMATION.test(trimmed)) return { is_bot: 1, bot_kind: "automation" };
  if (isbot(trimmed)) return { is_bot: 1, bot_kind: "crawler" };
  return { is_bot: 0, bot_kind: "" };
}
