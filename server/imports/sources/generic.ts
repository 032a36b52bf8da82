// Any other CSV: the destination in a column named url, destination, destination url, long url, target
// or original url; optionally the code (code, short code, alias, slug, keyword, back-half) or a full short
// link (short link, short url, link), title, description, tags (comma- or pipe-separated) and clicks.
// Headers are compared without case, spaces, underscores or hyphens.
import { cell, count, linkRecord, originKey, problem, splitShortLink, tagList, type SourceFormat } from "./record";

const URL_HEADERS = ["url", "destination", "destinationurl", "longurl", "target", "originalurl"];
const CODE_HEADERS = ["code", "shortcode", "alias", "slug", "keyword", "backhalf", "customalias"];
const LINK_HEADERS = ["shortlink", "shorturl", "link"];

export const generic: SourceFormat = {
  source: "generic",
  matches: (h) => URL_HEADERS.some((n) => h.includes(n)),
  read(c) {
    const url = cell(c, ...URL_HEADERS);
    if (!url) return problem("url", "is empty");
    const full = splitShortLink(cell(c, ...LINK_HEADERS));
    const code = cell(c, ...CODE_HEADERS) || full?.code || null;
    const domain = cell(c, "domain").toLowerCase() || full?.domain || null;
    const clicks = count(cell(c, "clicks", "visits", "visitcount"), "clicks");
    if (typeof clicks !== "number") return clicks;
    return linkRecord({
      // Without a code, the destination is what identifies the row on a re-run.
      originKey: code ? originKey(domain, code) : `url:${url}`,
      domain,
      code,
      input: { url, title: cell(c, "title", "name"), description: cell(c, "description"), tags: tagList(cell(c, "tags", "tag"), /[,|]/) },
      importedClicks: clicks,
    });
  },
};
