// User agent → device type, browser, OS and bot class. Pure functions of the header values, so replays match.
import { UAParser } from "ua-parser-js";
import { isbot } from "isbot";

export type DeviceType = "mobile" | "desktop" | "tablet";
export type BotKind = "" | "preview" | "crawler" | "automation";

export interface ParsedAgent {
  device_type: DeviceType;
  browser: string;
  browser_version: string;
  os: string;
  os_version: string;
  is_bot: number;
  bot_kind: BotKind;
}

export interface ClientHints {
  mobile?: string;
  platform?: string;
}

// Link unfurlers: they fetch a link to render a preview card, not because a person clicked.
const PREVIEW =
  /slackbot|slack-imgproxy|twitterbot|facebookexternalhit|facebookcatalog|facebot|linkedinbot|discordbot|whatsapp|telegrambot|applebot|imessage|skypeuripreview|microsoftpreview|pinterestbot|redditbot|embedly|iframely|vkshare|mastodon|line-poker|kakaotalk-scrap|mattermost|bitlybot|google-pagerenderer|bingpreview|quora link preview|yahoo link preview/i;
// Scripts, HTTP libraries and headless browsers.
const AUTOMATION =
  /curl|wget|python|aiohttp|httpx|go-http-client|okhttp|java\/|apache-httpclient|axios|node-fetch|undici|got \(|libwww-perl|ruby|guzzle|php\/|powershell|postman|insomnia|httpie|scrapy|headless|phantomjs|puppeteer|playwright|selenium|webdriver|lighthouse|dart:io|reqwest|deno\/|bun\/|^$/i;

export function classifyBot(ua: string): { is_bot: number; bot_kind: BotKind } {
  const trimmed = ua.trim();
  if (PREVIEW.test(trimmed)) return { is_bot: 1, bot_kind: "preview" };
  if (AUTOMATION.test(trimmed)) return { is_bot: 1, bot_kind: "automation" };
  if (isbot(trimmed)) return { is_bot: 1, bot_kind: "crawler" };
  return { is_bot: 0, bot_kind: "" };
}

const unquote = (v: string | undefined) => (v ?? "").replace(/^"|"$/g, "").trim();

function deviceTypeOf(parsed: string | undefined, hints: ClientHints): DeviceType {
  // Sec-CH-UA-Mobile: ?1 is explicit, while reduced agent strings ("Android 10; K") look like tablets.
  if (hints.mobile === "?1") return "mobile";
  if (parsed === "tablet") return "tablet";
  if (parsed === "mobile" || parsed === "wearable") return "mobile";
  return "desktop";
}

// Parsing is the costly part of enrichment and agents repeat a lot: a small bounded memo.
const memo = new Map<string, ParsedAgent>();
const MEMO_MAX = 10_000;

export function parseUserAgent(ua: string, hints: ClientHints = {}): ParsedAgent {
  const key = `${hints.mobile ?? ""}|${hints.platform ?? ""}|${ua}`;
  const hit = memo.get(key);
  if (hit) return hit;
  const r = new UAParser(ua).getResult();
  const parsed: ParsedAgent = {
    device_type: deviceTypeOf(r.device.type, hints),
    browser: r.browser.name ?? "",
    browser_version: r.browser.version ?? "",
    os: r.os.name || unquote(hints.platform),
    os_version: r.os.version ?? "",
    ...classifyBot(ua),
  };
  if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value!);
  memo.set(key, parsed);
  return parsed;
}
