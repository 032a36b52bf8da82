// Dub's link export (CSV): Short link, Destination URL, Clicks (a total), Created at, optional Tags
// (comma-separated), Link ID, Title, Description…
import { cell, count, linkRecord, originKey, problem, splitShortLink, tagList, type SourceFormat } from "./record";

export const DUB_SHARED_DOMAINS = new Set(["dub.sh", "dub.co", "dub.link"]);

export const dub: SourceFormat = {
  source: "dub",
  matches: (h) => h.includes("shortlink") && h.includes("destinationurl"),
  read(c) {
    const url = cell(c, "destinationurl");
    if (!url) return problem("Destination URL", "is empty");
    const link = splitShortLink(cell(c, "shortlink"));
    if (!link) return problem("Short link", "is not a short link (domain/code)");
    const clicks = count(cell(c, "clicks"), "Clicks");
    if (typeof clicks !== "number") return clicks;
    const domain = DUB_SHARED_DOMAINS.has(link.domain) ? null : link.domain;
    return linkRecord({
      originKey: originKey(domain, link.code),
      domain,
      code: link.code,
      input: { url, title: cell(c, "title"), description: cell(c, "description"), tags: tagList(cell(c, "tags"), /,/) },
      importedClicks: clicks,
    });
  },
};
