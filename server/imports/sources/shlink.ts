// Shlink's short_urls.csv (`shlink short-url:list --all` / the web client's export): createdAt, domain
// (empty for the default one), shortCode, shortUrl, longUrl, title, tags (pipe-joined), visits (a total).
import { cell, count, linkRecord, originKey, problem, tagList, type SourceFormat } from "./record";

export const shlink: SourceFormat = {
  source: "shlink",
  matches: (h) => h.includes("shortcode") && h.includes("longurl"),
  read(c) {
    const url = cell(c, "longurl");
    if (!url) return problem("longUrl", "is empty");
    const code = cell(c, "shortcode");
    if (!code) return problem("shortCode", "is empty");
    const visits = count(cell(c, "visits", "visitscount"), "visits");
    if (typeof visits !== "number") return visits;
    const domain = cell(c, "domain").toLowerCase() || null;
    return linkRecord({
      originKey: originKey(domain, code),
      domain,
      code,
      input: { url, title: cell(c, "title"), tags: tagList(cell(c, "tags"), /\|/) },
      importedClicks: visits,
    });
  },
};
