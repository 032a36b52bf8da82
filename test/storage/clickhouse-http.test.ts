// The ClickHouse stand-in (test/support/clickhouse-http.ts) answers @clickhouse/client as a server
// does: bound parameters, per-request settings and databases, deduplicated inserts, compression, the
// X-ClickHouse-* headers, and a real server's exception text, codes and statuses.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import zlib from "node:zlib";
import { createClient, ClickHouseError, ClickHouseLogLevel, type ClickHouseClient } from "@clickhouse/client";
import { spawnClickhouseHttp, type ClickhouseHttpProcess } from "../support/clickhouse-http/spawn";

let ch: ClickhouseHttpProcess;
let client: ClickHouseClient;
const db = `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;

beforeAll(async () => {
  ch = await spawnClickhouseHttp({ path: mkdtempSync(join(tmpdir(), "svc-ch-http-")) });
  client = createClient({ url: ch.url, ...quiet });
  await client.command({ query: `CREATE DATABASE ${db}` });
  await client.command({
    query: `CREATE TABLE ${db}.events (id UInt32, name String) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100`,
  });
});
afterAll(async () => {
  await client?.close();
  await ch?.stop();
});

const rows = async <T>(query: string, query_params: Record<string, unknown> = {}, settings = {}) =>
  (await (await client.query({ query, query_params, format: "JSONEachRow", clickhouse_settings: settings })).json()) as T[];
// Bun's fetch would inflate compressed answers itself; these tests read the bytes as sent.
const post = (params: Record<string, string>, body: BodyInit, headers: Record<string, string> = {}) =>
  fetch(`${ch.url}/?${new URLSearchParams(params)}`, { method: "POST", body, headers, decompress: false });
const quiet = { log: { level: ClickHouseLogLevel.OFF } };

describe("queries", () => {
  test("bound parameters reach the engine as a server binds them: quotes, backslashes, tabs, arrays, NULL", async () => {
    const tricky = "it's a \\ path\twith\ttabs\nand lines, 'quoted' \u00e9\u{1F600}";
    const [row] = await rows<{ s: string; a: string[]; n: string | null; d: string }>(
      "SELECT {s:String} AS s, {a:Array(String)} AS a, {n:Nullable(String)} AS n, {d:DateTime64(3, 'UTC')} AS d",
      { s: tricky, a: [tricky, "x"], n: null, d: new Date("2026-01-02T03:04:05.678Z") },
    );
    expect(row).toEqual({ s: tricky, a: [tricky, "x"], n: null, d: "2026-01-02 03:04:05.678" });
  });

  test("the query may come in the URL, the body, or both (the body continues the URL's query)", async () => {
    expect(await (await fetch(`${ch.url}/?query=${encodeURIComponent("SELECT 40 + 2")}`)).text()).toBe("42\n");
    expect(await (await post({}, "SELECT 'body'")).text()).toBe("body\n");
    expect(await (await post({ query: "SELECT 1 +" }, "1 AS two FORMAT JSONEachRow")).text()).toBe('{"two":2}\n');
  });

  test("long parameters sent as multipart form fields are bound too", async () => {
    const multipart = createClient({ url: ch.url, use_multipart_params: true });
    const long = "x".repeat(20_000);
    const result = await multipart.query({ query: "SELECT length({s:String}) AS n", query_params: { s: long }, format: "JSONEachRow" });
    expect(await result.json()).toEqual([{ n: 20_000 }]);
    await multipart.close();
  });

  test("default_format and FORMAT clauses pick the output, named in X-ClickHouse-Format", async () => {
    const res = await post({ default_format: "CSV" }, "SELECT 1 AS a, 'b' AS b");
    expect(await res.text()).toBe('1,"b"\n');
    expect(res.headers.get("x-clickhouse-format")).toBe("CSV");
    const json = await post({}, "SELECT 1 AS a FORMAT JSONCompactEachRow");
    expect(json.headers.get("x-clickhouse-format")).toBe("JSONCompactEachRow");
    expect(await json.text()).toBe("[1]\n");
  });

  test("query id, summary and timezone headers", async () => {
    const result = await client.query({ query: "SELECT number FROM numbers(3)", format: "JSONEachRow", query_id: "my-query-1" });
    expect(result.query_id).toBe("my-query-1");
    expect(result.response_headers["x-clickhouse-query-id"]).toBe("my-query-1");
    expect(((await result.json()) as { number: string | number }[]).map((r) => Number(r.number))).toEqual([0, 1, 2]);
    expect(result.response_headers["x-clickhouse-timezone"]).toBeTruthy();
    const summary = JSON.parse(String(result.response_headers["x-clickhouse-summary"]));
    expect(Object.keys(summary).sort()).toEqual(
      [
        "elapsed_ns",
        "read_bytes",
        "read_rows",
        "result_bytes",
        "result_rows",
        "total_rows_to_read",
        "written_bytes",
        "written_rows",
      ].sort(),
    );
  });

  test("a database per request: `database` decides the unqualified names", async () => {
    const scoped = createClient({ url: ch.url, database: db });
    const [here] = (await (await scoped.query({ query: "SELECT currentDatabase() AS d", format: "JSONEachRow" })).json()) as {
      d: string;
    }[];
    expect(here.d).toBe(db);
    const [other] = await rows<{ d: string }>("SELECT currentDatabase() AS d");
    expect(other.d).toBe("default");
    await scoped.close();
  });
});

describe("settings and concurrency", () => {
  test("settings given with one request never reach another, even when many run at once", async () => {
    const asked = Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? undefined : (i % 7) + 1));
    const seen = await Promise.all(
      asked.map((threads) =>
        rows<{ t: string; d: string }>(
          "SELECT getSetting('max_threads') AS t, currentDatabase() AS d",
          {},
          threads === undefined ? {} : { max_threads: threads },
        ),
      ),
    );
    const defaultThreads = (await rows<{ t: string }>("SELECT getSetting('max_threads') AS t"))[0].t;
    seen.forEach(([row], i) => expect(String(row.t)).toBe(asked[i] === undefined ? String(defaultThreads) : String(asked[i])));
  });

  test("SET and USE change nothing for the requests after them (no session)", async () => {
    expect((await post({}, "SET max_threads = 5")).status).toBe(200);
    expect((await post({}, `USE ${db}`)).status).toBe(200);
    const [row] = await rows<{ t: string; d: string }>("SELECT getSetting('max_threads') AS t, currentDatabase() AS d");
    expect(Number(row.t)).not.toBe(5);
    expect(row.d).toBe("default");
  });

  test("an insert token deduplicates as on a server: the same token stores the chunk once, another token again", async () => {
    const insert = (token: string, ids: number[]) =>
      client.insert({
        table: `${db}.events`,
        values: ids.map((id) => ({ id, name: `n${id}` })),
        format: "JSONEachRow",
        clickhouse_settings: { insert_deduplicate: 1, insert_deduplication_token: token, async_insert: 0, wait_end_of_query: 1 },
      });
    await insert("chunk-a", [1, 2, 3]);
    await insert("chunk-a", [1, 2, 3]);
    await insert("chunk-a", [7, 8, 9]); // same token, other rows: dropped as a duplicate too
    await insert("chunk-b", [1, 2, 3]);
    const [{ n }] = await rows<{ n: string }>(`SELECT count() AS n FROM ${db}.events`);
    expect(Number(n)).toBe(6);
    const [{ t }] = await rows<{ t: string }>("SELECT getSetting('insert_deduplication_token') AS t");
    expect(t).toBe("");
  });
});

describe("inserts and compression", () => {
  test("raw bytes after INSERT … FORMAT arrive byte-exact, binary formats included", async () => {
    await client.command({ query: `CREATE TABLE ${db}.blobs (id UInt32, b String) ENGINE = MergeTree ORDER BY id` });
    const blob = Buffer.from([0xff, 0x00, 0x0a, 0x41, 0xc3]);
    const rowBinary = Buffer.concat([Buffer.from([5, 0, 0, 0]), Buffer.from([blob.length]), blob]);
    const res = await post({ query: `INSERT INTO ${db}.blobs FORMAT RowBinary` }, rowBinary);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.headers.get("x-clickhouse-summary")!).written_rows).toBe("1");
    const inline = Buffer.concat([Buffer.from(`INSERT INTO ${db}.blobs FORMAT RowBinary\n`), Buffer.from([6, 0, 0, 0, 1, 0x80])]);
    expect((await post({}, inline)).status).toBe(200);
    expect((await post({ query: `INSERT INTO ${db}.blobs FORMAT RowBinary` }, "")).status).toBe(200); // empty: nothing, no error
    expect(await rows(`SELECT id, hex(b) AS h FROM ${db}.blobs ORDER BY id`)).toEqual([
      { id: 5, h: "FF000A41C3" },
      { id: 6, h: "80" },
    ]);
  });

  test("exec with a raw JSONCompactEachRow stream, as the service's insertRaw sends it", async () => {
    const result = await client.exec({
      query: `INSERT INTO ${db}.events (id, name) FORMAT JSONCompactEachRow`,
      values: Readable.from([Buffer.from('[100,"a"]\n[101,"b"]\n')]),
    });
    for await (const _ of result.stream);
    expect(result.summary?.written_rows).toBe("2");
    const got = await rows<{ name: string }>(`SELECT name FROM ${db}.events WHERE id >= 100 ORDER BY id`);
    expect(got.map((r) => r.name)).toEqual(["a", "b"]);
  });

  test("compressed requests and responses when the client asks (gzip by the client; br, zstd, deflate by hand)", async () => {
    const compressed = createClient({ url: ch.url, compression: { request: true, response: true } });
    await compressed.insert({ table: `${db}.events`, values: [{ id: 200, name: "gz" }], format: "JSONEachRow" });
    const result = await compressed.query({ query: `SELECT name FROM ${db}.events WHERE id = 200`, format: "JSONEachRow" });
    expect(result.response_headers["content-encoding"]).toBe("gzip");
    expect(await result.json()).toEqual([{ name: "gz" }]);
    await compressed.close();
    const codecs = { br: zlib.brotliDecompressSync, zstd: zlib.zstdDecompressSync, deflate: zlib.inflateSync } as const;
    for (const [codec, inflate] of Object.entries(codecs)) {
      const res = await post({ enable_http_compression: "1" }, "SELECT 'squeezed'", { "accept-encoding": codec });
      expect(res.headers.get("content-encoding")).toBe(codec);
      expect(inflate(Buffer.from(await res.arrayBuffer())).toString()).toBe("squeezed\n");
    }
    const body = zlib.zstdCompressSync(Buffer.from("SELECT 'zstd body'"));
    expect(await (await post({}, body, { "content-encoding": "zstd" })).text()).toBe("zstd body\n");
  });
});

describe("errors as a server reports them", () => {
  const cases: [string, Record<string, string>, string, number, number, string][] = [
    ["unknown table", {}, "SELECT * FROM default.nope", 404, 60, "UNKNOWN_TABLE"],
    ["syntax error", {}, "SELEC 1 FROM", 400, 62, "SYNTAX_ERROR"],
    ["two statements", {}, "SELECT 1; SELECT 2", 400, 62, "SYNTAX_ERROR"],
    ["unknown setting", { no_such_setting: "1" }, "SELECT 1", 404, 115, "UNKNOWN_SETTING"],
    ["unknown database", { database: "no_such_db" }, "SELECT 1", 404, 81, "UNKNOWN_DATABASE"],
    [
      "bad input data",
      { query: `INSERT INTO ${db}.events FORMAT JSONEachRow` },
      '{"id":"x"}',
      400,
      27,
      "CANNOT_PARSE_INPUT_ASSERTION_FAILED",
    ],
    ["sessions", { session_id: "s1" }, "SELECT 1", 501, 48, "NOT_IMPLEMENTED"],
  ];
  for (const [name, params, body, status, code, type] of cases)
    test(`${name}: ${status}, X-ClickHouse-Exception-Code ${code}, "Code: ${code}. DB::Exception: … (${type}) (version …)"`, async () => {
      const res = await post(params, body);
      expect(res.status).toBe(status);
      expect(res.headers.get("x-clickhouse-exception-code")).toBe(String(code));
      expect(await res.text()).toMatch(new RegExp(`^Code: ${code}\\. DB::Exception: .*\\(${type}\\) \\(version [0-9.]+\\)\\n$`, "s"));
    });

  test("the client turns them into ClickHouseError with the code and type", async () => {
    const err = await client.query({ query: "SELECT * FROM default.nope", format: "JSONEachRow" }).catch((e) => e);
    expect(err).toBeInstanceOf(ClickHouseError);
    expect(err.code).toBe("60");
    expect(err.type).toBe("UNKNOWN_TABLE");
  });

  test("credentials are checked (516, 403), and a GET may only read (READONLY)", async () => {
    const wrong = await fetch(`${ch.url}/?query=SELECT%201`, { headers: { authorization: `Basic ${btoa("default:nope")}` } });
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get("x-clickhouse-exception-code")).toBe("516");
    const write = await fetch(`${ch.url}/?query=${encodeURIComponent(`CREATE TABLE ${db}.x (a UInt8) ENGINE = Memory`)}`);
    expect(write.status).toBe(500);
    expect(write.headers.get("x-clickhouse-exception-code")).toBe("164");
    expect(await client.query({ query: `EXISTS TABLE ${db}.x`, format: "JSONEachRow" }).then((r) => r.json())).toEqual([{ result: 0 }]);
  });
});

test("runs on its own: --user/--password required of clients, --setting as the default profile, /ping, and SIGTERM ends it cleanly", async () => {
  const own = await spawnClickhouseHttp({
    path: mkdtempSync(join(tmpdir(), "svc-ch-own-")),
    user: "svc",
    password: "s3cret",
    profile: { output_format_json_quote_64bit_integers: "1" }, // a server before 25.8
  });
  expect(own.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(await (await fetch(`${own.url}/ping`)).text()).toBe("Ok.\n");
  const good = createClient({ url: own.url, username: "svc", password: "s3cret" });
  expect((await good.ping({ select: true })).success).toBe(true);
  const big = async (settings = {}) =>
    (await (await good.query({ query: "SELECT toUInt64(7) AS n", format: "JSONEachRow", clickhouse_settings: settings })).json())[0];
  expect(await big()).toEqual({ n: "7" });
  expect(await big({ output_format_json_quote_64bit_integers: 0 })).toEqual({ n: 7 });
  const bad = createClient({ url: own.url, username: "svc", password: "wrong", ...quiet });
  const err = await bad.query({ query: "SELECT 1" }).catch((e) => e);
  expect(err.type).toBe("AUTHENTICATION_FAILED");
  await Promise.all([good.close(), bad.close()]);
  // SIGTERM while a client is halfway through sending a request (the server has read its headers: it
  // answered `Expect: 100-continue`): the process still ends.
  let continued: () => void;
  const headersRead = new Promise<void>((resolve) => (continued = resolve));
  const half = await Bun.connect({
    hostname: "127.0.0.1",
    port: Number(new URL(own.url).port),
    socket: { data: (_socket, bytes) => void (bytes.toString().startsWith("HTTP/1.1 100") && continued()) },
  });
  half.write("POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 100\r\n\r\n");
  await headersRead;
  half.write("SELECT");
  own.process.kill("SIGTERM");
  expect(await own.process.exited).toBe(0);
  half.end();
}, 60_000);
