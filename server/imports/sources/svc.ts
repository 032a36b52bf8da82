// Our own formats: the links list (GET /links/export: LINKS_EXPORT_COLUMNS of links/export.ts)
// and the raw clicks export (GET /exports/clicks as CSV), whose clicks come back as imported clicks.
import { DIRECT } from "../../visitors/hosts";
import { cell, count, linkRecord, originKey, problem, splitShortLink, tagList, type SourceFormat } from "./record";
import { sourceTime } from "./yourls";
import { CLICK_COLUMNS } from "../../exports/model";

export const svcLinks: SourceFormat = {
  source: "svc",
  matches: (h) => h.includes("shortcode") && h.includes("originalurl") && h.includes("shorturl"),
  read(c) {
    const url = cell(c, "originalurl");
    if (!url) return problem("original_url", "is empty");
    const code = cell(c, "shortcode");
    if (!code) return problem("short_code", "is empty");
    const clicks = count(cell(c, "importedclicks"), "imported_clicks");
    if (typeof clicks !== "number") return clicks;
    // `domain` is empty for links on the server's own host.
    const domain = cell(c, "domain").toLowerCase() || null;
    return linkRecord({
      originKey: originKey(domain, code),
      domain,
      code,
      input: { url, title: cell(c, "title"), description: cell(c, "description"), tags: tagList(cell(c, "tags"), /\|/) },
      importedClicks: clicks,
    });
  },
};

/** The columns of our raw clicks export (GET /exports/clicks): the exports feature's own list. */
export const CLICKS_EXPORT_COLUMNS = CLICK_COLUMNS.map((c) => c.name);

export const svcClicks: SourceFormat = {
  source: "svc",
  matches: (h) => h.includes("clickid") && h.includes("timestamp") && h.includes("shortcode"),
  read(c) {
    const code = cell(c, "shortcode");
    if (!code) return problem("short_code", "is empty");
    const at = sourceTime(cell(c, "timestamp"));
    if (!at) return problem("timestamp", "must be an ISO 8601 date-time");
    const domain = cell(c, "domain").toLowerCase() || null;
    const country = cell(c, "countrycode").toUpperCase();
    const bot = cell(c, "isbot");
    return {
      kind: "click",
      originKey: originKey(domain, code),
      clickKey: cell(c, "clickid") || `${at.toISOString()}|${cell(c, "referrerurl")}`,
      timestamp: at,
      referrer: cell(c, "referrer").toLowerCase() || DIRECT,
      countryCode: /^[A-Z]{2}$/.test(country) ? country : "XX",
      deviceType: cell(c, "devicetype"),
      browser: cell(c, "browser"),
      os: cell(c, "os"),
      isBot: bot === "1" || bot.toLowerCase() === "true",
    };
  },
};
