// POST /imports end to end in-process: every source's fixture in its real format becomes links (codes
// kept, totals beside the link), a re-run creates nothing twice, conflicts are skipped or renamed, and
// a file we cannot read is refused whole with nothing created.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { createTestApp, type TestApp } from "../helpers/app";

let t: TestApp;
const P = "/public-api/v1";
const FIX = join(import.meta.dir, "..", "fixtures", "imports");
const fixture = (name: string) => readFileSync(join(FIX, name));

beforeAll(async () => {
  t = await createTestApp({}, {}, { jobs: false });
});
afterAll(() => t.close());

async function upload(key: string, body: BodyInit, query = "", type = "text/csv") {
  return t.call(`${P}/imports${query}`, { method: "POST", key, body, headers: { "content-type": type } });
}

async function importFile(key: string, body: BodyInit, query = "", type = "text/csv") {
  const res = await upload(key, body, query, type);
  expect(res.status).toBe(202);
  await t.runtime.jobs.imports.runOnce();
  const done = await t.call(`${P}/imports/${res.body.data.id}`, { key });
  expect(done.status).toBe(200);
  return done.body.data;
}

const links = async (key: string) => (await t.call(`${P}/links?per_page=100`, { key })).body.data as any[];
const byCode = async (key: string) => new Map((await links(key)).map((l) => [l.short_code, l]));

describe("POST /imports", () => {
  test("Bitly: codes kept, totals kept beside the link, BOM/CRLF/quoted newlines read, formula and bad rows reported", async () => {
    const { key } = await t.createAccount({ tier: "scale" });
    const imp = await importFile(key, fixture("bitly.csv"));
    expect(imp).toMatchObject({ source: "bitly", status: "completed", total: 5, processed: 5, created: 2, skipped: 0, failed: 3 });
    expect(imp.errors).toEqual([
      { row: 3, field: "title", message: expect.stringContaining("formula") },
      { row: 4, field: "domain", message: expect.stringContaining("go.acme-example.com") },
      { row: 5, field: "url", message: expect.any(String) },
    ]);
    const got = await byCode(key);
    expect(got.get("3Xk9aQz")).toMatchObject({
      original_url: "https://shop.example.com/spring?ref=a",
      title: "Spring sale",
      tags: ["sale", "spring"],
      imported_clicks: 1204,
    });
    // The custom back-half is the code people use.
    expect(got.get("team-page")).toMatchObject({ title: "Team page\r\n(two lines)", imported_clicks: 1531 });

    // A re-run of the same file creates nothing twice.
    const again = await importFile(key, fixture("bitly.csv"));
    expect(again).toMatchObject({ created: 0, skipped: 2, failed: 3 });
    expect((await links(key)).length).toBe(2);
  });

  test("a later export adds only what is new and raises the totals", async () => {
    const { key } = await t.createAccount({ tier: "scale" });
    await importFile(key, fixture("dub.csv"));
    const later = `${readFileSync(join(FIX, "dub.csv"), "utf8").replace(",312,", ",400,")}link_1J8y1,https://dub.sh/new-one,https://example.com/new,New,,1,2024-06-01T10:00:00.000Z,\n`;
    const imp = await importFile(key, later);
    expect(imp).toMatchObject({ source: "dub", created: 1, skipped: 2, failed: 0 });
    const got = await byCode(key);
    expect([...got.keys()].sort()).toEqual(["launch", "new-one", "pricing-2024"]);
    expect(got.get("launch")).toMatchObject({ imported_clicks: 400, description: "Our launch post", tags: ["blog", "launch"] });
  });

  test("a taken code is skipped or renamed, as asked", async () => {
    const owner = await t.createAccount({ tier: "scale" });
    await importFile(owner.key, fixture("shlink-short_urls.csv"));
    const other = await t.createAccount({ tier: "scale" });
    const skipped = await importFile(other.key, fixture("shlink-short_urls.csv"));
    expect(skipped).toMatchObject({ source: "shlink", created: 0, skipped: 2 });
    expect(skipped.errors[0]).toMatchObject({ row: 1, field: "short_code", message: expect.stringContaining("abc12") });
    const renamed = await importFile(other.key, fixture("shlink-short_urls.csv"), "?on_conflict=rename");
    expect(renamed).toMatchObject({ created: 2, renamed: 2, skipped: 0 });
    const mine = await links(other.key);
    expect(mine.map((l) => l.original_url).sort()).toEqual(["https://example.com/article-1", "https://example.com/article-2"]);
    expect(mine.every((l) => l.short_code !== "abc12" && l.short_code !== "xyz99")).toBe(true);
  });

  test("codes with quotes, backslashes, commas and braces: renamed once, found again by a re-run", async () => {
    const { key } = await t.createAccount({ tier: "scale" });
    // Not aliases we accept, so each becomes a generated code; the source's code stays the origin a re-run looks up.
    const codes = ['a"b', "c\\d", "e,f", "{g}", "NULL", "h%20i"];
    const csv =
      "Title,Link,Custom Link,Destination URL,Tags,Created,Clicks\n" +
      codes
        .map((c, i) => `T${i},"https://bit.ly/${c.replaceAll('"', '""')}",,https://example.com/odd/${i},,2024-03-01 10:00:00,${i}\n`)
        .join("");
    expect(await importFile(key, csv, "?on_conflict=rename")).toMatchObject({ created: 6, renamed: 5, skipped: 0, failed: 0 });
    const again = await importFile(key, csv, "?on_conflict=rename");
    expect(again).toMatchObject({ created: 0, skipped: 6, failed: 0 });
    const mine = await links(key);
    expect(mine.map((l) => l.original_url).sort()).toEqual(codes.map((_, i) => `https://example.com/odd/${i}`).sort());
  });

  test("Kutt JSON, YOURLS and a generic CSV; YOURLS' log becomes imported clicks, not clicks", async () => {
    const { key, accountId } = await t.createAccount({ tier: "scale" });
    expect(await importFile(key, fixture("kutt-links.json"), "", "application/json")).toMatchObject({ source: "kutt", created: 2 });
    expect(await importFile(key, fixture("generic.csv"))).toMatchObject({ source: "generic", created: 2 });
    // YOURLS' keyword "1" is not an alias we accept: renamed on request.
    expect(await importFile(key, fixture("yourls_url.csv"), "?on_conflict=rename")).toMatchObject({
      source: "yourls",
      created: 2,
      renamed: 1,
    });
    const log = await importFile(key, fixture("yourls_log.csv"));
    expect(log).toMatchObject({ source: "yourls", status: "completed", total: 3, clicks: 3, failed: 0 });
    const got = await byCode(key);
    expect(got.get("kt-docs")).toMatchObject({ original_url: "https://example.com/docs", description: "Docs", imported_clicks: 19 });
    expect(got.get("gen-one")).toMatchObject({ title: "Generic one", tags: ["a", "b"] });
    // None of them is a click of ours: the click reports and their views never see them.
    const ours = await t.runtime.deps.ch.query<{ n: string }>(
      `SELECT count() AS n FROM ${t.runtime.deps.ch.table("clicks")} WHERE account_id = {a:UUID}`,
      { a: accountId },
    );
    expect(Number(ours[0].n)).toBe(0);
    // A re-run of the log adds no click.
    expect(await importFile(key, fixture("yourls_log.csv"))).toMatchObject({ clicks: 3 });
    const rows = await t.runtime.deps.ch.query<{ n: string }>(
      `SELECT count() AS n FROM ${t.runtime.deps.ch.table("imported_clicks")} FINAL WHERE link_id = {id:UUID}`,
      { id: got.get("ghub").id },
    );
    expect(Number(rows[0].n)).toBe(2);
    // Link stats report them beside our own figures, which stay at zero.
    const stats = (await t.call(`${P}/links/${got.get("ghub").id}/stats`, { key })).body.data;
    expect(stats).toMatchObject({ total_clicks: 0, human_clicks: 0, bot_clicks: 0, unique_visitors: 0, imported_clicks: 2 });
    const kutt = (await t.call(`${P}/links/${got.get("kt-docs").id}/stats`, { key })).body.data;
    expect(kutt).toMatchObject({ total_clicks: 0, imported_clicks: 19 });
    // The stats CSV carries the same imported total on the link's row, beside its own zero clicks.
    const csv = await t.request(`${P}/links/${got.get("kt-docs").id}/stats?format=csv`, { key });
    expect(csv.status).toBe(200);
    const [statsRow] = parse(await csv.text(), { columns: true }) as Record<string, string>[];
    expect(statsRow).toMatchObject({ short_code: "kt-docs", total_clicks: "0", imported_clicks: "19" });
  });

  test("hostile files: refused whole with an error naming the problem, nothing created", async () => {
    const { key } = await t.createAccount({ tier: "scale" });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("Long URL,Slug\nhttps://example.com/x,xx1\n", "utf16le")]);
    const latin1 = Buffer.from("url,title\nhttps://example.com/x,Caf\xe9\n", "latin1");
    for (const body of [utf16, latin1]) {
      const res = await upload(key, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain("UTF-8");
    }
    const unknown = await upload(key, "foo,bar\n1,2\n");
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain("foo, bar");
    const unbalanced = await upload(key, 'url,title\nhttps://example.com/x,"never closed\n');
    expect(unbalanced.status).toBe(400);
    const empty = await upload(key, "");
    expect(empty.status).toBe(400);
    // A JSON body the guard has read already: `null` and an empty one are no file, not a crash.
    for (const json of ["null", "", "  "]) {
      const res = await upload(key, json, "", "application/json");
      expect(res.status).toBe(400);
      expect(res.body.error.details.fields[0].field).toBe("file");
    }
    expect((await links(key)).length).toBe(0);
    expect((await t.call(`${P}/imports`, { key })).body.data).toEqual([]);
  });

  test("a file over the tier's rows is refused, the limit named", async () => {
    const { key } = await t.createAccount({ tier: "free" });
    const rows = Array.from({ length: 1001 }, (_, i) => `https://example.com/${i}`).join("\n");
    const res = await upload(key, `url\n${rows}\n`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain("1,000 rows");
    expect(res.body.error.message).toContain("free tier");
  });

  test("multipart upload; another account's import is 404; links:read cannot import", async () => {
    const { key } = await t.createAccount({ tier: "scale" });
    const form = new FormData();
    form.append("file", new Blob([fixture("dub.csv")], { type: "text/csv" }), "dub-export.csv");
    const res = await t.call(`${P}/imports`, { method: "POST", key, body: form });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ file_name: "dub-export.csv", source: "dub", total: 2, status: "queued" });
    const stranger = await t.createAccount({ tier: "scale" });
    expect((await t.call(`${P}/imports/${res.body.data.id}`, { key: stranger.key })).status).toBe(404);
    const reader = await t.createAccount({ tier: "scale", scopes: ["links:read"] });
    expect((await upload(reader.key, fixture("dub.csv"))).status).toBe(403);
  });
});

describe("our own formats", () => {
  test("the links export reads back on another server: codes, titles, tags and totals round-trip", async () => {
    const { key } = await t.createAccount({ tier: "scale" });
    const made = [
      {
        url: "https://example.com/a?x=1,2",
        custom_alias: `rt-a-${Date.now()}`,
        title: 'Comma, "quote"\nand a newline',
        tags: ["one", "two"],
      },
      { url: "https://example.com/b", title: "=1+2", description: "formula-like title" },
      { url: "https://example.com/c" },
    ];
    for (const json of made)
      expect((await t.call(`${P}/links`, { method: "POST", key, json: { description: "", title: "", ...json } })).status).toBe(201);
    const exported = await t.request(`${P}/links/export`, { key });
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toStartWith("text/csv");
    const csv = await exported.text();
    expect(csv.split("\r\n")[0]).toBe("short_url,domain,short_code,original_url,title,description,tags,created_at,imported_clicks");
    expect(csv).toContain(`"'=1+2"`.replace(/"/g, "")); // neutralised for spreadsheets

    const other = await createTestApp({}, {}, { jobs: false });
    try {
      const acc = await other.createAccount({ tier: "scale" });
      const res = await other.call(`${P}/imports`, { method: "POST", key: acc.key, body: csv, headers: { "content-type": "text/csv" } });
      expect(res.status).toBe(202);
      expect(res.body.data).toMatchObject({ source: "svc", total: 3 });
      await other.runtime.jobs.imports.runOnce();
      expect((await other.call(`${P}/imports/${res.body.data.id}`, { key: acc.key })).body.data).toMatchObject({ created: 3, failed: 0 });
      const again = await (await other.request(`${P}/links/export`, { key: acc.key })).text();
      const rows = (text: string) =>
        text
          .split("\r\n")
          .map((line) => line.replace(/,\d{4}-\d\d-\d\dT[^,]*Z,/, ",<created>,"))
          .sort();
      // The same links, but for the apostrophe our export puts before a formula-like cell.
      expect(rows(again).map((r) => r.replace("''=", "'="))).toEqual(rows(csv));
    } finally {
      await other.close();
    }
  });

  test("the links export pages through every link exactly once", async () => {
    const { key } = await t.createAccount({ tier: "scale" });
    const items = Array.from({ length: 2_500 }, (_, i) => ({ url: `https://example.com/page/${i}`, title: `t${i}`, description: "d" }));
    for (let i = 0; i < items.length; i += 1000)
      expect((await t.call(`${P}/links/bulk`, { method: "POST", key, json: items.slice(i, i + 1000) })).status).toBe(201);
    const csv = await (await t.request(`${P}/links/export`, { key })).text();
    const urls = csv
      .trim()
      .split("\r\n")
      .slice(1)
      .map((line) => line.split(",")[3]);
    expect(urls.length).toBe(2_500);
    expect(new Set(urls).size).toBe(2_500);
  });

  test("our clicks export comes back as imported clicks of the links imported from our links export", async () => {
    const { key } = await t.createAccount({ tier: "scale" });
    expect(await importFile(key, fixture("svc-links.csv"))).toMatchObject({ source: "svc", created: 2 });
    const got = await byCode(key);
    expect(got.get("spring-24")).toMatchObject({
      title: "Spring, 2024",
      description: 'Said "hello"',
      tags: ["launch", "spring"],
      imported_clicks: 12,
    });
    const clicks = await importFile(key, fixture("svc-clicks.csv"));
    expect(clicks).toMatchObject({ source: "svc", total: 3, clicks: 3, failed: 0 });
    const rows = await t.runtime.deps.ch.query<{ link_id: string; timestamp: string; is_bot: number }>(
      `SELECT link_id, toString(timestamp) AS timestamp, is_bot FROM ${t.runtime.deps.ch.table("imported_clicks")} FINAL WHERE link_id IN {ids:Array(UUID)} ORDER BY timestamp`,
      { ids: [got.get("spring-24").id, got.get("docs-v2").id] },
    );
    expect(rows.map((r) => [r.link_id, r.timestamp, Number(r.is_bot)])).toEqual([
      [got.get("spring-24").id, "2024-03-05 08:00:00.123", 0],
      [got.get("spring-24").id, "2024-03-05 09:30:00.000", 0],
      [got.get("docs-v2").id, "2024-03-06 10:00:00.000", 1],
    ]);
  });
});

describe("over a real server (serve.ts)", () => {
  test("an import's body passes the server's 16 MB limit, streamed or with a length; other routes keep it", async () => {
    const { serveApp } = await import("../../server/serve");
    const server = serveApp(t.runtime, { port: 0, hostname: "127.0.0.1" });
    try {
      // A Free account: the file reaches the importer (no 413) and is refused there for its rows, so nothing is imported.
      const { key } = await t.createAccount({ tier: "free" });
      const base = `http://127.0.0.1:${server.port}/public-api/v1`;
      // About 20 MB: one row with a long title, then short rows.
      const head = `url,title\nhttps://example.com/big,${"t".repeat(200)}\n`;
      const rows = Array.from(
        { length: 200_000 },
        (_, i) => `https://example.com/s/${i},Page number ${i} of the big file ${"-".repeat(30)}`,
      ).join("\n");
      const csv = `${head}${rows}\n`;
      expect(csv.length).toBeGreaterThan(16 * 1024 * 1024);
      const sized = await fetch(`${base}/imports`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "text/csv" },
        body: csv,
      });
      expect(sized.status).toBe(400);
      expect(((await sized.json()) as any).error.message).toContain("more than 1,000 rows");
      const bytes = new TextEncoder().encode(csv);
      const chunked = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < bytes.length; i += 1 << 20) c.enqueue(bytes.subarray(i, i + (1 << 20)));
          c.close();
        },
      });
      const streamed = await fetch(`${base}/imports`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "text/csv" },
        body: chunked,
      });
      expect(streamed.status).toBe(400);
      expect(((await streamed.json()) as any).error.message).toContain("more than 1,000 rows");
      const other = await fetch(`${base}/links/bulk`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: `[${" ".repeat(17 * 1024 * 1024)}]`,
      });
      expect(other.status).toBe(413);
    } finally {
      server.stop(true);
    }
  }, 120_000);
});
