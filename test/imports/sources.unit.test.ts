// The formats the importer reads, without a store: which source each real export's header row is, what a
// row becomes, and the cells refused as formulas; the links export's CSV cells.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { csvRows } from "../../server/imports/file";
import { CLICKS_EXPORT_COLUMNS, csvFormatFor, looksLikeFormula, splitShortLink, type ImportRecord } from "../../server/imports/sources";
import { csvCell, LINKS_EXPORT_COLUMNS } from "../../server/links/export";

const FIX = join(import.meta.dir, "..", "fixtures", "imports");

async function read(name: string): Promise<{ source: string | undefined; records: ImportRecord[] }> {
  let headers: string[] = [];
  const cells: Record<string, string>[] = [];
  for await (const r of csvRows(join(FIX, name), 0, (h) => (headers = h))) cells.push(r.cells!);
  const format = csvFormatFor(headers);
  return { source: format?.source, records: format ? cells.map((c) => format.read(c)) : [] };
}

describe("detection from the header row", () => {
  for (const [file, source] of [
    ["bitly.csv", "bitly"],
    ["dub.csv", "dub"],
    ["shlink-short_urls.csv", "shlink"],
    ["yourls_url.csv", "yourls"],
    ["yourls_log.csv", "yourls"],
    ["svc-links.csv", "svc"],
    ["svc-clicks.csv", "svc"],
    ["generic.csv", "generic"],
  ] as const)
    test(`${file} is ${source}`, async () => expect((await read(file)).source).toBe(source));

  test("our own exports' fixtures have exactly the columns of the exports", () => {
    const header = (name: string) => readFileSync(join(FIX, name), "utf8").split("\n")[0];
    expect(header("svc-links.csv")).toBe(LINKS_EXPORT_COLUMNS.join(","));
    expect(header("svc-clicks.csv")).toBe(CLICKS_EXPORT_COLUMNS.join(","));
  });

  test("headers compare without case, spaces, underscores or hyphens; nothing known is null", () => {
    expect(csvFormatFor(["longurl", "slug"])?.source).toBe("generic");
    expect(csvFormatFor(["foo", "bar"])).toBeNull();
    expect(csvFormatFor(["shortlink", "destinationurl"], "bitly")).toBeNull();
  });
});

describe("rows", () => {
  test("Bitly: the custom back-half is the code, the shared domain none, the total kept; BOM, CRLF and a quoted newline read", async () => {
    const { records } = await read("bitly.csv");
    expect(records[0]).toEqual({
      kind: "link",
      originKey: "/3Xk9aQz",
      domain: null,
      code: "3Xk9aQz",
      input: { url: "https://shop.example.com/spring?ref=a", title: "Spring sale", tags: ["sale", "spring"] },
      importedClicks: 1204,
    });
    expect(records[1]).toMatchObject({ code: "team-page", input: { title: "Team page\r\n(two lines)" }, importedClicks: 1531 });
    expect(records[2]).toEqual({ kind: "problem", field: "title", message: expect.stringContaining("formula") });
    expect(records[3]).toMatchObject({ domain: "go.acme-example.com", code: "docs" });
  });

  test("YOURLS' log: a click dated when it happened (UTC), its referrer host, country and agent classified", async () => {
    const { records } = await read("yourls_log.csv");
    expect(records[0]).toMatchObject({
      kind: "click",
      originKey: "/ghub",
      clickKey: "1",
      timestamp: new Date("2019-02-01T08:00:00Z"),
      referrer: "news.example.org",
      countryCode: "DE",
      deviceType: "desktop",
      browser: "Chrome",
      isBot: false,
    });
    expect(records[1]).toMatchObject({ referrer: "direct", isBot: true });
    expect(records[2]).toMatchObject({ deviceType: "mobile", os: "iOS" });
  });
});

test("short links, formulas and the export's cells", () => {
  expect(splitShortLink("bit.ly/abc")).toEqual({ domain: "bit.ly", code: "abc" });
  expect(splitShortLink("https://Go.Example.com/x-1/")).toEqual({ domain: "go.example.com", code: "x-1" });
  expect(splitShortLink("not a link")).toBeNull();
  for (const f of ["=1+2", '=HYPERLINK("x")', "@SUM(A1)", "-cmd(x)", "+foo(1)", "\tx"]) expect(looksLikeFormula(f)).toBe(true);
  for (const t of ["-50% off", "@home", "+1 555", "a=b", "'=1+2"]) expect(looksLikeFormula(t)).toBe(false);
  expect(csvCell("plain")).toBe("plain");
  expect(csvCell('a, "b"\nc')).toBe('"a, ""b""\nc"');
  expect(csvCell("=1+2")).toBe("'=1+2");
  expect(csvCell("@x")).toBe("'@x");
});
