// Bitly's link export (CSV): Link (bit.ly/abc or a custom domain), Custom Link, Destination URL (or
// Long URL), Title, Tags (comma-separated), Created, and Clicks where the export has them (a total).
import { cell, count, linkRecord, originKey, problem, splitShortLink, tagList, type SourceFormat } from "./record";

export const BITLY_SHARED_DOMAINS = new Set(["bit.ly", "bitly.com", "j.mp"]);

export const bitly: SourceFormat = {
  source: "bitly",
  matches: (h) => h.includes("link") && (h.includes("destinationurl") || h.includes("longurl")) && !h.includes("shortlink"),
  read(c) {
    const url = cell(c, "destinationurl", "longurl");
    if (!url) return problem("Destination URL", "is empty");
    // A custom back-half ("Custom Link") is the code people use; the generated one stays the origin.
    const link = splitShortLink(cell(c, "customlink") || cell(c, "link"));
    if (!link) return problem("Link", "is not a short link (domain/code)");
    const clicks = count(cell(c, "clicks", "totalclicks", "engagements"), "Clicks");
    if (typeof clicks !== "number") return clicks;
    const domain = BITLY_SHARED_DOMAINS.has(link.domain) ? null : link.domain;
    return linkRecord({
      originKey: originKey(domain, link.code),
      domain,
      code: link.code,
      input: { url, title: cell(c, "title"), tags: tagList(cell(c, "tags"), /,/) },
      importedClicks: clicks,
    });
  },
};
