// The spool's answer to a ClickHouse crash window: the deduplication log can hold a chunk's token
// while the part itself was lost. The chunk in flight at a crash is therefore checked row by row.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp, type TestApp } from "../helpers/app";
import { Spool } from "../../server/ingest/spool";
import { clickhouseSink, missingById } from "../../server/ingest/repository";
import type { ClickhouseTable } from "../../server/storage/clickhouse/tables";

// The tests' own tables, not the migrations'.
const ROWS = "reconcile_rows" as ClickhouseTable;
const MANY = "reconcile_many" as ClickhouseTable;
const AGAIN = "reconcile_again" as ClickhouseTable;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Row = { seq: number; payload: string };

test("a chunk whose token ClickHouse already knows (but whose rows it lost) is still stored, once", async () => {
  const ch = t.runtime.deps.ch;
  await ch.command(`CREATE TABLE ${ch.table(ROWS)} (seq UInt64, payload String) ENGINE = MergeTree ORDER BY seq
    SETTINGS non_replicated_deduplication_window = 1000`);
  const dir = mkdtempSync(join(tmpdir(), "svc-reconcile-"));
  const make = (reconcile?: (rows: Row[]) => Promise<Row[]>) =>
    new Spool<Row>({
      dir,
      name: "r",
      maxUnflushedBytes: 1 << 30,
      reconcile,
      sink: clickhouseSink(ch, ROWS, (rows: Row[]) => rows),
    });

  // First process: writes three records, records its intent to flush them, and "dies".
  const first = make();
  await first.append([
    { seq: 1, payload: "a" },
    { seq: 2, payload: "b" },
    { seq: 3, payload: "c" },
  ]);
  const end = (
    JSON.stringify([
      { seq: 1, payload: "a" },
      { seq: 2, payload: "b" },
      { seq: 3, payload: "c" },
    ]) + "\n"
  ).length;
  writeFileSync(join(dir, "checkpoint.json"), JSON.stringify({ segment: 0, offset: 0, pending: { segment: 0, start: 0, end } }));
  // What the crash left in ClickHouse: the chunk's token is known, one of its rows is stored.
  await clickhouseSink(ch, ROWS, (rows: Row[]) => rows)([{ seq: 2, payload: "b" }], `r-0-0-${end}`);

  // Restart with reconciliation: the two missing rows are stored, the present one is not repeated.
  const second = make(missingById<Row>(ch, ROWS, "seq", "UInt64", (r) => r.seq));
  await second.flush();
  await second.close();
  const rows = await ch.query<{ seq: string }>(`SELECT seq FROM ${ch.table(ROWS)} ORDER BY seq`);
  expect(rows.map((r) => Number(r.seq))).toEqual([1, 2, 3]);
});

test("the row check of a large chunk (tens of thousands of ids) finds exactly the missing rows", async () => {
  const ch = t.runtime.deps.ch;
  await ch.command(`CREATE TABLE ${ch.table(MANY)} (rid UUID) ENGINE = MergeTree ORDER BY rid`);
  const records = Array.from({ length: 20_000 }, () => ({ rid: crypto.randomUUID() }));
  const stored = records.filter((_, i) => i % 3 === 0);
  await ch.insert(MANY, stored);
  const missing = await missingById<{ rid: string }>(ch, MANY, "rid", "UUID", (r) => r.rid)(records);
  expect(missing.length).toBe(records.length - stored.length);
  expect(new Set(missing.map((r) => r.rid))).toEqual(new Set(records.filter((_, i) => i % 3 !== 0).map((r) => r.rid)));
});

test("a crash right after a reconcile insert: the next start finds every row present and stores none twice", async () => {
  const ch = t.runtime.deps.ch;
  await ch.command(`CREATE TABLE ${ch.table(AGAIN)} (seq UInt64, payload String) ENGINE = MergeTree ORDER BY seq
    SETTINGS non_replicated_deduplication_window = 1000`);
  const dir = mkdtempSync(join(tmpdir(), "svc-reconcile-again-"));
  const sink = clickhouseSink(ch, AGAIN, (rows: Row[]) => rows);
  const reconcile = missingById<Row>(ch, AGAIN, "seq", "UInt64", (r) => r.seq);
  const rows = [
    { seq: 1, payload: "a" },
    { seq: 2, payload: "b" },
  ];
  const end = (JSON.stringify(rows) + "\n").length;
  const first = new Spool<Row>({ dir, name: "q", maxUnflushedBytes: 1 << 30, sink });
  await first.append(rows);
  // The first process recorded its intent and died before its insert reached ClickHouse.
  writeFileSync(join(dir, "checkpoint.json"), JSON.stringify({ segment: 0, offset: 0, pending: { segment: 0, start: 0, end } }));

  // The second process reconciles (every row is missing) and dies once its insert is stored, before
  // it can mark the chunk done: its sink stores the rows, then throws as a crash would end it.
  let crashed = false;
  const second = new Spool<Row>({
    dir,
    name: "q",
    maxUnflushedBytes: 1 << 30,
    reconcile,
    sink: async (records, token) => {
      await sink(records, token);
      crashed = true;
      throw new Error("killed after the insert");
    },
  });
  await expect(second.flush()).rejects.toThrow("killed after the insert");
  expect(crashed).toBe(true);

  // The third process finds the chunk still pending and every row present: nothing is stored again.
  const third = new Spool<Row>({ dir, name: "q", maxUnflushedBytes: 1 << 30, reconcile, sink });
  await third.flush();
  await third.close();
  const stored = await ch.query<{ seq: string }>(`SELECT seq FROM ${ch.table(AGAIN)} ORDER BY seq`);
  expect(stored.map((r) => Number(r.seq))).toEqual([1, 2]);
});
