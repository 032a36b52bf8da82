// YOURLS' tables as CSV (exported with phpMyAdmin or MySQL's INTO OUTFILE, with a header row): yourls_url (keyword,
// url, title, timestamp, ip, clicks) gives the links, yourls_log (click_id, click_time, shorturl,
// referrer, user_agent, ip_address, country_code) their clicks, dated when they happened. YOURLS has
// one domain, so links go to the import's domain; its click total is not kept (the log has the clicks).
import { parseUserAgent } from "../../visitors/user-agent";
import { DIRECT, referrerHost } from "../../visitors/hosts";
import { cell, linkRecord, originKey, problem, type SourceFormat } from "./record";

export const yourlsUrl: SourceFormat = {
  source: "yourls",
  matches: (h) => h.includes("keyword") && h.includes("url"),
  read(c) {
    const url = cell(c, "url");
    if (!url) return problem("url", "is empty");
    const code = cell(c, "keyword");
    if (!code) return problem("keyword", "is empty");
    return linkRecord({ originKey: originKey(null, code), domain: null, code, input: { url, title: cell(c, "title") }, importedClicks: 0 });
  },
};

/** "2024-03-01 12:00:00" (YOURLS stores UTC-less MySQL datetimes; we read them as UTC) or ISO 8601. */
export function sourceTime(value: string): Date | null {
  const text = /^\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?$/.test(value) ? `${value.replace(" ", "T")}Z` : value;
  const d = new Date(text);
  return Number.isNaN(d.getTime()) ? null : d;
}

export const yourlsLog: SourceFormat = {
  source: "yourls",
  matches: (h) => h.includes("clicktime") && h.includes("shorturl"),
  read(c) {
    const code = cell(c, "shorturl");
    if (!code) return problem("shorturl", "is empty");
    const at = sourceTime(cell(c, "clicktime"));
    if (!at) return problem("click_time", "must be a date-time (YYYY-MM-DD HH:MM:SS, UTC)");
    const ua = parseUserAgent(cell(c, "useragent"));
    const country = cell(c, "countrycode").toUpperCase();
    return {
      kind: "click",
      originKey: originKey(null, code),
      clickKey: cell(c, "clickid") || `${at.toISOString()}|${cell(c, "useragent")}|${cell(c, "referrer")}`,
      timestamp: at,
      referrer: cell(c, "referrer") === DIRECT ? DIRECT : referrerHost(cell(c, "referrer")),
      countryCode: /^[A-Z]{2}$/.test(country) ? country : "XX",
      deviceType: ua.device_type,
      browser: ua.browser,
      os: ua.os,
      isBot: ua.is_bot === 1,
    };
  },
};
