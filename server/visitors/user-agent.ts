// User agent → device type, browser, OS and bot class. Pure functions of the header values, so replays match.
import { UAParser } from "ua-parser-js";
import { classifyBot, type BotKind } from "./bots";

export { classifyBot, type BotKind };

export type DeviceType = "mobile" | "desktop" | "tablet";

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
