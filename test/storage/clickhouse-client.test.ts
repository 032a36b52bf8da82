// The service's ClickHouse client over HTTP, against the stand-in behind a recording proxy: every insert
// carries the settings a server needs, a spool chunk's token stores it once, each response is read to the
// end (connections are reused and the client never warns), and one instance works end to end over HTTP.
// Embedded, an insert's settings stay with that insert.
import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openClickhouse, type Clickhouse } from "../../server/storage/clickhouse/client";
import { chunkInsertSettings, missingById } from "../../server/ingest/repository";
import type { ClickhouseTable } from "../../server/storage/clickhouse/tables";
import { spawnClickhouseHttp, type ClickhouseHttpProcess } from "../support/clickhouse-http/spawn";
import { freshClickhouseDatabase, sharedChdb } from "../helpers/stores";
import { createTestApp } from "../helpers/app";

// The tests' own tables, not the migrations'.
const CHUNKS = "chunks" as ClickhouseTable;
const EVENTS = "events" as ClickhouseTable;

interface Seen {
  query: string;
  settings: URLSearchParams;
  clientPort: number;
  urlLength: number;
  multipart: boolean;
}

let upstream: ClickhouseHttpProcess;
let proxy: ReturnType<typeof Bun.serve>;
const seen: Seen[] = [];
let ch: Clickhouse;

beforeAll(async () => {
  upstream = await spawnClickhouseHttp({ path: mkdtempSync(join(tmpdir(), "svc-ch-client-")) });
  // Forwards every request as it is and notes its URL parameters and the client's source port (one port per connection).
  proxy = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req, server) {
      const url = new URL(req.url);
      seen.push({
        query: url.searchParams.get("query") ?? "",
        settings: url.searchParams,
        clientPort: server.requestIP(req)!.port,
        urlLength: req.url.length,
        multipart: req.headers.get("content-type")?.startsWith("multipart/form-data") ?? false,
      });
      const res = await fetch(`${upstream.url}${url.pathname}${url.search}`, {
        method: req.method,
        headers: req.headers,
        body: req.method === "GET" ? undefined : await req.arrayBuffer(),
        decompress: false,
      });
      return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers });
    },
  });
  ch = await openClickhouse({
    url: `http://127.0.0.1:${proxy.port}`,
    database: freshClickhouseDatabase(),
    dataDir: mkdtempSync(join(tmpdir(), "svc-ch-dir-")),
  });
  await ch.command(`CREATE TABLE ${ch.table(CHUNKS)} (id UInt32, payload String) ENGINE = MergeTree ORDER BY id
    SETTINGS non_replicated_deduplication_window = 1000`);
}, 60_000);
afterAll(async () => {
  await ch?.close();
  proxy?.stop(true);
  await upstream?.stop();
});

const chunk = (ids: number[]) => Buffer.from(ids.map((id) => JSON.stringify([id, `p${id}`])).join("\n"));
const count = async () => Number((await ch.query<{ n: string }>(`SELECT count() AS n FROM ${ch.table(CHUNKS)}`))[0].n);

test("a chunk sent twice with its token is stored once, over HTTP as embedded", async () => {
  const before = await count();
  await ch.insertRaw(CHUNKS, ["id", "payload"], "JSONCompactEachRow", chunk([1, 2, 3]), chunkInsertSettings(3, "spool-0-0-3"));
  await ch.insertRaw(CHUNKS, ["id", "payload"], "JSONCompactEachRow", chunk([1, 2, 3]), chunkInsertSettings(3, "spool-0-0-3"));
  expect(await count()).toBe(before + 3);
  // A caller asking for an asynchronous insert still gets a synchronous, token-deduplicated one.
  const asyncAsked = { ...chunkInsertSettings(2, "spool-0-3-5"), async_insert: 1 };
  await ch.insertRaw(CHUNKS, ["id", "payload"], "JSONCompactEachRow", chunk([4, 5]), asyncAsked);
  await ch.insertRaw(CHUNKS, ["id", "payload"], "JSONCompactEachRow", chunk([4, 5]), asyncAsked);
  expect(await count()).toBe(before + 5);
  await ch.insert(CHUNKS, [{ id: 6, payload: "p6" }], chunkInsertSettings(1, "rows-6") as never);
  await ch.insert(CHUNKS, [{ id: 6, payload: "p6" }], chunkInsertSettings(1, "rows-6") as never);
  expect(await count()).toBe(before + 6);
});

test("every insert carries async_insert=0, wait_end_of_query=1 and insert_deduplicate=1", async () => {
  const inserts = seen.filter((s) => /^INSERT/i.test(s.query));
  expect(inserts.length).toBeGreaterThanOrEqual(6 + 10); // the test above, and the migrations' schema_migrations rows
  for (const s of inserts) {
    expect([s.settings.get("async_insert"), s.settings.get("wait_end_of_query"), s.settings.get("insert_deduplicate")]).toEqual([
      "0",
      "1",
      "1",
    ]);
  }
});

test("inserts read their response to the end: one connection serves them all, and the client never warns", async () => {
  const warn = spyOn(console, "warn");
  const from = seen.length;
  try {
    for (let i = 0; i < 30; i++)
      await ch.insertRaw(CHUNKS, ["id", "payload"], "JSONCompactEachRow", chunk([1000 + i]), chunkInsertSettings(1, `reuse-${i}`));
    const ports = new Set(seen.slice(from).map((s) => s.clientPort));
    expect(ports.size).toBeLessThanOrEqual(2); // a socket idle past the client's TTL may be replaced once
    expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([]);
  } finally {
    warn.mockRestore();
  }
});

test("a crash reconcile of a large chunk (25,000 ids) works over HTTP: the ids travel in request bodies, never in a long URL", async () => {
  await ch.command(`CREATE TABLE ${ch.table(EVENTS)} (event_id UUID) ENGINE = MergeTree ORDER BY event_id`);
  const records = Array.from({ length: 25_000 }, () => ({ event_id: crypto.randomUUID() }));
  const stored = records.filter((_, i) => i % 3 === 0);
  await ch.insertRaw(EVENTS, ["event_id"], "JSONCompactEachRow", Buffer.from(stored.map((r) => `["${r.event_id}"]`).join("\n")), {});
  const from = seen.length;
  const missing = await missingById(ch, EVENTS, "event_id", "UUID", (r: { event_id: string }) => r.event_id)(records);
  expect(missing.length).toBe(records.length - stored.length);
  expect(new Set(missing.map((r) => r.event_id)).has(stored[0].event_id)).toBe(false);
  const requests = seen.slice(from);
  expect(requests.length).toBeGreaterThan(1);
  for (const r of requests) expect(r.urlLength).toBeLessThan(8 * 1024);
  expect(requests.every((r) => r.multipart)).toBe(true);
});

test("one instance end to end over HTTP: a redirect's click and a journey batch are stored and reported", async () => {
  const t = await createTestApp({}, { CLICKHOUSE_URL: upstream.url });
  try {
    expect(t.runtime.deps.ch.kind).toBe("http");
    const { key } = await t.createAccount();
    const link = (await t.call("/public-api/v1/links", { method: "POST", key, json: { url: "https://example.com/over-http" } })).body.data;
    const hop = await t.request(`/${link.short_code}`, {
      headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120 Safari/537.36" },
    });
    expect(hop.status).toBe(302);
    const events = [{ link_id: link.id, visitor_id: "v1", event_type: "page_view", page_url: "https://example.com/over-http" }];
    expect((await t.call("/public-api/v1/journey/events", { method: "POST", key, json: { events } })).status).toBe(202);
    await t.flush(); // the click flusher's worker hands its rows back; the main thread inserts them over HTTP
    const stats = await t.call(`/public-api/v1/links/${link.id}/stats`, { key });
    expect(stats.body.data.total_clicks).toBe(1);
    const journey = await t.call(`/public-api/v1/journey/links/${link.id}/summary?period=24h`, { key });
    expect(journey.body.data.total_events).toBe(1);
  } finally {
    await t.close();
  }
}, 300_000); // a first test app creates the PGlite template: slow on a loaded machine

test("embedded, an insert's settings stay with that insert (nothing is SET on the shared session)", async () => {
  const local = await openClickhouse({ database: freshClickhouseDatabase(), dataDir: tmpdir(), sharedClient: await sharedChdb() });
  await local.command(`CREATE TABLE ${local.table(CHUNKS)} (id UInt32, payload String) ENGINE = MergeTree ORDER BY id
    SETTINGS non_replicated_deduplication_window = 1000`);
  await local.insert(CHUNKS, [{ id: 1, payload: "a" }], chunkInsertSettings(1, "embedded-token") as never);
  const [{ t }] = await local.query<{ t: string }>("SELECT getSetting('insert_deduplication_token') AS t");
  expect(t).toBe("");
  // A later insert without a token is not taken for a replay of the first.
  await local.insert(CHUNKS, [{ id: 2, payload: "b" }]);
  expect(Number((await local.query<{ n: string }>(`SELECT count() AS n FROM ${local.table(CHUNKS)}`))[0].n)).toBe(2);
}, 60_000);
