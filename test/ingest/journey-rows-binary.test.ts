// The embedded journey insert's RowBinary: every column of binary rows reads back as the JSON text rows
// store it (edge values, unicode, the longest values the API takes, nulls, the previous version's rows
// without has_revenue); the request path writes binary lines to the spool, and a chunk of them is stored
// once under its token, in journey_events and its rollups, also when the previous version's text insert
// of the same chunk came first (an upgrade's replay); the chunk in flight at a crash is reconciled by
// its rows; old JSON lines, object-form lines and binary lines in one chunk are all stored.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp, type TestApp } from "../helpers/app";
import { testClickhouseUrl } from "../helpers/stores";
import { insertLink, pageView, postEvents } from "../journey/helpers";
import { Spool } from "../../server/ingest/spool";
import type { JourneyRecord, JourneyRow } from "../../server/ingest/journey/record";
import { JOURNEY_COLUMNS, toJourneyRow } from "../../server/ingest/journey/rows";
import {
  journeyBinaryLine,
  parseJourneySpool,
  readJourneyRowsBinary,
  spoolChunkToRowBinary,
  writeJourneyRowBinary,
} from "../../server/ingest/journey/row-binary";
import { insertJourneyRowBinaryFile, insertJourneyRows } from "../../server/ingest/journey/repository";
import { journeyStream } from "../../server/ingest/journey/sink";
import { RowBinaryWriter } from "../../server/storage/clickhouse/row-binary";
import { chTime } from "../../server/storage/clickhouse/format";

let t: TestApp;
let key: string;
let accountId: string;
const dir = mkdtempSync(join(tmpdir(), "svc-journey-binary-"));
beforeAll(async () => {
  t = await createTestApp();
  ({ key, accountId } = await t.createAccount());
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const ODD = 'a\tb\\nc\nd\re\\ \'quoted\' "double" ünïcødé 🚀 \u0000 ],[" end';
/** The API refuses NUL in text (the flusher's own tests above take it). */
const ODD_API = ODD.replace("\u0000", "");
const NOW = Date.UTC(2026, 10, 30, 23, 59, 59, 999);

/** Events with every column's edge values, each on a visitor id of its own (the rows' order in the tests). */
function edgeEvents(link: string, base = NOW, odd = ODD): Record<string, unknown>[] {
  return [
    // Every optional field absent: empty strings, null numbers, has_revenue 0.
    { link_id: link, visitor_id: "v0", event_type: "page_view", page_url: "https://a.example/" },
    // The longest values the API takes, in characters of 1, 2 and 4 UTF-8 bytes.
    {
      link_id: link,
      visitor_id: `v1${"é".repeat(126)}`,
      session_id: "😀".repeat(64),
      event_type: "conversion",
      event_name: "x".repeat(256),
      page_url: `https://b.example/${"ü".repeat(2048 - 18)}`,
      page_title: odd.repeat(10).slice(0, 512),
      scroll_percent: 100,
      time_on_page: 31_536_000,
      timestamp: new Date(base).toISOString(),
      conversion_name: "€".repeat(256),
      revenue_cents: 1e15,
      currency: "EUR",
      country_code: "de",
      city: odd,
      region: "Bayern",
      device_type: "desktop",
      browser: "b".repeat(64),
      browser_version: "120.0.1",
      os: "o".repeat(64),
      os_version: "14",
      properties: { [odd.slice(0, 64)]: "y".repeat(1024), n: 1.5, t: true, z: null },
    },
    // Zeros (revenue 0 given: has_revenue 1), fractions, the first millisecond of the next month.
    {
      link_id: link,
      visitor_id: "v2",
      event_type: "scroll_depth",
      page_url: "https://c.example/?q=%00",
      scroll_percent: 33.3,
      time_on_page: 0.001,
      revenue_cents: 0,
      timestamp: new Date(base + 1).toISOString(),
      properties: {},
    },
    { link_id: link, visitor_id: "v3", event_type: "time_on_page", page_url: "u", scroll_percent: 0, time_on_page: 0 },
  ];
}

const rowsOf = (account: string, events: Record<string, unknown>[]): JourneyRow[] =>
  events.map((e) => toJourneyRow(crypto.randomUUID(), NOW, chTime(NOW), account, e));

async function insertBinary(rows: JourneyRow[], token: string) {
  const w = new RowBinaryWriter(64);
  for (const r of rows) writeJourneyRowBinary(w, r);
  const file = join(dir, `${crypto.randomUUID()}.rowbinary`);
  writeFileSync(file, w.bytes());
  await insertJourneyRowBinaryFile(t.runtime.deps.ch, file, rows.length, token);
  rmSync(file);
}

const insertText = (rows: JourneyRow[], token: string) =>
  insertJourneyRows(t.runtime.deps.ch, Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n")), rows.length, token);

const stored = (account: string) => {
  const ch = t.runtime.deps.ch;
  return ch.query<Record<string, unknown>>(
    `SELECT * EXCEPT (event_id, account_id, link_id, revenue_cents), toFloat64(revenue_cents) AS revenue_cents,
       toTypeName(scroll_percent) AS scroll_type
     FROM ${ch.table("journey_events")} WHERE account_id = {a:UUID} ORDER BY visitor_id`,
    { a: account },
  );
};

/** Rows in journey_events and, per rollup, what it counts of the account's events. */
async function counts(account: string): Promise<number[]> {
  const ch = t.runtime.deps.ch;
  const [r] = await ch.query<Record<string, string>>(
    `SELECT
      (SELECT count() FROM ${ch.table("journey_events")} WHERE account_id = {a:UUID}) AS events,
      (SELECT sum(events) FROM ${ch.table("journey_hourly")} WHERE account_id = {a:UUID}) AS hourly,
      (SELECT count() FROM ${ch.table("journey_event_bundles")} WHERE account_id = {a:UUID}) AS bundles`,
    { a: account },
  );
  return Object.values(r).map(Number);
}

describe("RowBinary rows", () => {
  test("every column reads back as the JSON text rows store it, edge values included", async () => {
    const link = crypto.randomUUID();
    const binaryAccount = crypto.randomUUID();
    const textAccount = crypto.randomUUID();
    await insertBinary(rowsOf(binaryAccount, edgeEvents(link)), `binary-${binaryAccount}`);
    await insertText(rowsOf(textAccount, edgeEvents(link)), `text-${textAccount}`);
    const fromBinary = await stored(binaryAccount);
    expect(fromBinary).toHaveLength(4);
    expect(fromBinary).toEqual(await stored(textAccount));
    // And as sent, checked apart from either path.
    const sent = edgeEvents(link);
    expect(fromBinary[0]).toMatchObject({ session_id: "", city: "", scroll_percent: null, time_on_page: null, revenue_cents: 0 });
    expect(fromBinary[0]).toMatchObject({ has_revenue: 0, properties: "{}", scroll_type: "Nullable(Float32)" });
    expect(fromBinary[1]).toMatchObject({
      visitor_id: sent[1].visitor_id,
      session_id: sent[1].session_id,
      event_name: sent[1].event_name,
      page_url: sent[1].page_url,
      page_title: sent[1].page_title,
      conversion_name: sent[1].conversion_name,
      city: ODD,
      country_code: "DE",
      revenue_cents: 1e15,
      has_revenue: 1,
      scroll_percent: 100,
      time_on_page: 31_536_000,
      timestamp: "2026-11-30 23:59:59.999",
      received_at: "2026-11-30 23:59:59.999",
    });
    expect(JSON.parse(fromBinary[1].properties as string)).toEqual(sent[1].properties);
    expect(fromBinary[2]).toMatchObject({ revenue_cents: 0, has_revenue: 1, time_on_page: 0.001, timestamp: "2026-12-01 00:00:00.000" });
    expect(fromBinary[2].scroll_percent).toBe(33.3); // a Float32, printed shortest
    expect(fromBinary[3]).toMatchObject({ scroll_percent: 0, time_on_page: 0, has_revenue: 0 });
  });

  test("a row of the previous version (no has_revenue) gets the column's default, as the text insert gives it", async () => {
    const link = crypto.randomUUID();
    const events = [
      { link_id: link, visitor_id: "a", event_type: "conversion", page_url: "u" },
      { link_id: link, visitor_id: "b", event_type: "custom", page_url: "u", revenue_cents: 5 },
      { link_id: link, visitor_id: "c", event_type: "custom", page_url: "u", revenue_cents: 0 },
    ];
    const binaryAccount = crypto.randomUUID();
    const textAccount = crypto.randomUUID();
    await insertBinary(
      rowsOf(binaryAccount, events).map((r) => r.slice(0, -1)),
      `binary-${binaryAccount}`,
    );
    await insertText(
      rowsOf(textAccount, events).map((r) => r.slice(0, -1)),
      `text-${textAccount}`,
    );
    const fromBinary = await stored(binaryAccount);
    expect(fromBinary.map((r) => r.has_revenue)).toEqual([1, 1, 0]);
    expect(fromBinary).toEqual(await stored(textAccount));
  });

  test("a binary line reads back as the rows it was made of", () => {
    const rows = rowsOf(crypto.randomUUID(), edgeEvents(crypto.randomUUID()));
    const line = journeyBinaryLine(rows)!;
    expect(line.indexOf(0x0a)).toBe(line.length - 1);
    expect(line.toString("latin1", 0, 6)).toBe("rb1,4,");
    const back = parseJourneySpool(line);
    // Float32 keeps 33.3 as its nearest float; everything else exactly.
    const expected = rows.map((r) => r.map((v, i) => (i === 11 && typeof v === "number" ? new Float32Array([v])[0] : v)));
    expect(back).toEqual(expected);
    expect(readJourneyRowsBinary(Buffer.alloc(0))).toEqual([]);
  });

  test("records that are not rows of this version are left to the JSON line", () => {
    const row = rowsOf(crypto.randomUUID(), edgeEvents(crypto.randomUUID()))[0];
    expect(journeyBinaryLine([row, row.slice(0, -1)])).toBeNull();
    expect(journeyBinaryLine([{ event_id: "x", received_at: 0, account_id: "a", event: {} } as JourneyRecord])).toBeNull();
  });

  test("a line of a layout this version does not know stops the flush with its name, it is not skipped", () => {
    const w = new RowBinaryWriter(64);
    expect(() => spoolChunkToRowBinary(Buffer.from("rb9,1,AAAA\n"), w)).toThrow("unknown line format");
    expect(() => parseJourneySpool(Buffer.from("zzz\n"))).toThrow("unknown line format");
  });
});

describe.skipIf(!!testClickhouseUrl)("the embedded journey flusher", () => {
  const spoolDir = () => join(t.config.dataDir, "spool", "journey");
  const segments = () =>
    readdirSync(spoolDir())
      .filter((f) => /^\d{12}\.log$/.test(f))
      .map((f) => readFileSync(join(spoolDir(), f)));

  test("accepted batches are binary lines in the spool, stored with every column, and the insert file is removed", async () => {
    const link = await insertLink(t, accountId);
    // Times the API takes (at most a day ahead): the last millisecond of the previous hour and the first of this one.
    const base = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 1;
    const events = edgeEvents(link, base, ODD_API);
    const answer = await postEvents(t, key, events);
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const spooled = Buffer.concat(segments());
    expect(spooled.includes(Buffer.from("\nrb1,4,")) || spooled.subarray(0, 6).toString() === "rb1,4,").toBe(true);
    await t.flush();
    const mine = await stored(accountId);
    expect(mine.map((r) => r.visitor_id)).toEqual(events.map((e) => e.visitor_id).sort());
    const textAccount = crypto.randomUUID();
    await insertText(rowsOf(textAccount, edgeEvents(link, base, ODD_API)), `text-${textAccount}`);
    const fromText = await stored(textAccount);
    // received_at is the request's time, not NOW (and so is the time of an event sent without one);
    // every other column as the text path stores it.
    const strip = (r: Record<string, unknown>) => ({ ...r, received_at: undefined, timestamp: undefined });
    expect(mine.map(strip)).toEqual(fromText.map(strip));
    expect(mine[0].timestamp).toBe(mine[0].received_at);
    expect(mine[1].timestamp).toBe(chTime(base));
    expect(mine[2].timestamp).toBe(chTime(base + 1));
    expect(readdirSync(join(t.config.dataDir, "clickhouse", "journey-insert-files"))).toEqual([]);
  });

  test("a chunk replayed under its token is stored once, after a text insert of the same chunk too; another token stores it again", async () => {
    const account = crypto.randomUUID();
    const rows = rowsOf(account, edgeEvents(crypto.randomUUID()));
    const { sinkRaw } = journeyStream(t.runtime.deps.ch, { dataDir: dir });
    const chunk = () => Buffer.concat([journeyBinaryLine(rows.slice(0, 1))!, journeyBinaryLine(rows.slice(1))!]);
    // The previous version stored the chunk as text, then died before its checkpoint: the upgrade replays it in binary.
    await insertText(rows, `chunk-${account}`);
    expect(await counts(account)).toEqual([4, 4, 4]);
    expect(await sinkRaw(chunk(), `chunk-${account}`)).toBe(4);
    expect(await sinkRaw(chunk(), `chunk-${account}`)).toBe(4);
    expect(await counts(account)).toEqual([4, 4, 4]);
    expect(await sinkRaw(chunk(), `other-${account}`)).toBe(4);
    expect(await counts(account)).toEqual([8, 8, 8]);
    expect(readdirSync(join(dir, "clickhouse", "journey-insert-files"))).toEqual([]);
  });

  test("JSON rows, rows of the previous version, the object form and binary lines in one chunk are all stored, once", async () => {
    const account = crypto.randomUUID();
    const link = crypto.randomUUID();
    const rows = rowsOf(account, edgeEvents(link));
    const objectForm = {
      event_id: crypto.randomUUID(),
      received_at: NOW,
      account_id: account,
      event: pageView(link, "v9", { revenue_cents: 7 }),
    };
    const chunk = Buffer.concat([
      Buffer.from(`${JSON.stringify([rows[0]])}\n`),
      Buffer.from(`${JSON.stringify([rows[1].slice(0, -1)])}\n`),
      Buffer.from(`${JSON.stringify([objectForm])}\n`),
      journeyBinaryLine(rows.slice(2))!,
    ]);
    const { sinkRaw } = journeyStream(t.runtime.deps.ch, { dataDir: dir });
    expect(await sinkRaw(Buffer.from(chunk), `mixed-${account}`)).toBe(5);
    expect(await sinkRaw(Buffer.from(chunk), `mixed-${account}`)).toBe(5);
    const got = await stored(account);
    expect(got.map((r) => [r.visitor_id, r.has_revenue, r.revenue_cents])).toEqual([
      ["v0", 0, 0],
      [rows[1][5], 1, 1e15],
      ["v2", 1, 0],
      ["v3", 0, 0],
      ["v9", 1, 7],
    ]);
  });

  test("the chunk in flight at a crash is checked by its rows: the missing ones are stored, none twice", async () => {
    const account = crypto.randomUUID();
    const rows = rowsOf(account, edgeEvents(crypto.randomUUID()));
    const stream = journeyStream(t.runtime.deps.ch, { dataDir: dir });
    const spoolAt = mkdtempSync(join(dir, "spool-"));
    const open = () => new Spool<JourneyRecord>({ dir: spoolAt, name: "journey", maxUnflushedBytes: 1 << 30, ...stream });
    const first = open();
    await first.append(rows.slice(0, 2));
    await first.append(rows.slice(2));
    // Written and fsynced; the process "dies" with the chunk in flight:
    const end = journeyBinaryLine(rows.slice(0, 2))!.length + journeyBinaryLine(rows.slice(2))!.length;
    writeFileSync(join(spoolAt, "checkpoint.json"), JSON.stringify({ segment: 0, offset: 0, pending: { segment: 0, start: 0, end } }));
    // What the crash left in ClickHouse: one of the chunk's rows.
    await insertBinary([rows[3]], `partial-${account}`);
    expect(await counts(account)).toEqual([1, 1, 1]);
    const second = open();
    await second.flush();
    await second.close();
    expect(await counts(account)).toEqual([4, 4, 4]);
    const ids = await t.runtime.deps.ch.query<{ id: string }>(
      `SELECT toString(event_id) AS id FROM ${t.runtime.deps.ch.table("journey_events")} WHERE account_id = {a:UUID} ORDER BY id`,
      { a: account },
    );
    expect(ids.map((r) => r.id)).toEqual(rows.map((r) => String(r[0])).sort());
  });
});

test("the text flusher (a ClickHouse server) stores a chunk of binary and JSON lines, as the embedded one left it, once", async () => {
  const account = crypto.randomUUID();
  const rows = rowsOf(account, edgeEvents(crypto.randomUUID()));
  const { sinkRaw } = journeyStream(t.runtime.deps.ch);
  const chunk = () => Buffer.concat([journeyBinaryLine(rows.slice(0, 3))!, Buffer.from(`${JSON.stringify([rows[3]])}\n`)]);
  expect(await sinkRaw(chunk(), `moved-${account}`)).toBe(4);
  expect(await sinkRaw(chunk(), `moved-${account}`)).toBe(4);
  expect(await counts(account)).toEqual([4, 4, 4]);
  const textAccount = crypto.randomUUID();
  await insertText(rowsOf(textAccount, edgeEvents(crypto.randomUUID())), `text-${textAccount}`);
  expect(await stored(account)).toEqual(await stored(textAccount));
});

test("with a ClickHouse server, or a data directory file() would misread, the spool keeps JSON lines", () => {
  const ch = t.runtime.deps.ch;
  expect(journeyStream(ch).appendLine).toBeUndefined();
  expect(journeyStream(ch, { dataDir: join(dir, "it's") }).appendLine).toBeUndefined();
  expect(JOURNEY_COLUMNS).toHaveLength(26);
});
