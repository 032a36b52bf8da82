// Chunk tokens carry the spool's own random id: two spools never send the same token for different rows,
// while a replay from the same directory still sends the same token (and so stores nothing twice).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp, listen, type TestApp } from "../helpers/app";
import { Spool } from "../../server/ingest/spool";
import { clickhouseSink, missingById } from "../../server/ingest/repository";
import type { ClickhouseTable } from "../../server/storage/clickhouse/tables";
import { insertLink, pageView, postEvents } from "../journey/helpers";

/** A table of this test's own, not one of the migrations'. */
const ownTable = (name: string) => name as ClickhouseTable;

const BROWSER = { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120 Safari/537.36" };
const checkpointOf = (t: TestApp, stream: string) =>
  JSON.parse(readFileSync(join(t.config.dataDir, "spool", stream, "checkpoint.json"), "utf8"));

/** The same traffic through one instance: `batches` journey batches of 10 events and `clicks` redirects, then a flush. */
async function sameTraffic(t: TestApp, batches: number, clicks: number) {
  const { accountId, key } = await t.createAccount();
  const linkId = await insertLink(t, accountId);
  // A generated code has 7 characters on every instance, so every click record has the same length.
  const link = (
    await t.call("/public-api/v1/links", { method: "POST", key, json: { url: "https://example.com/x", title: "t", description: "d" } })
  ).body.data;
  for (let b = 0; b < batches; b++) {
    const events = Array.from({ length: 10 }, (_, i) => pageView(linkId, `visitor-${b}-${i}`, { timestamp: "2026-01-02T03:04:05.678Z" }));
    expect((await postEvents(t, key, events)).status).toBe(202);
  }
  const server = listen(t);
  try {
    for (let c = 0; c < clicks; c++)
      expect((await fetch(`${server.url}/${link.short_code}`, { redirect: "manual", headers: BROWSER })).status).toBe(302);
  } finally {
    await server.stop();
  }
  await t.flush();
  return { accountId, linkId: link.id as string, journeyLink: linkId };
}

describe("two spools, one ClickHouse", () => {
  const database = `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp({}, { CLICKHOUSE_DATABASE: database });
    b = await createTestApp({}, { CLICKHOUSE_DATABASE: database });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  test("identical batches with identical chunk boundaries from two DATA_DIRs: every row is kept", async () => {
    const fromA = await sameTraffic(a, 5, 20);
    const fromB = await sameTraffic(b, 5, 20);
    // The premise: both spools flushed the very same byte ranges (so positions alone would collide).
    for (const stream of ["journey", "clicks"]) expect(checkpointOf(a, stream)).toEqual(checkpointOf(b, stream));
    expect(a.runtime.deps.streams.journey.id).not.toBe(b.runtime.deps.streams.journey.id);
    const ch = a.runtime.deps.ch;
    for (const { accountId, linkId, journeyLink } of [fromA, fromB]) {
      const [events] = await ch.query<{ n: string }>(`SELECT count() n FROM ${ch.table("journey_events")} WHERE account_id = {a:UUID}`, {
        a: accountId,
      });
      expect({ accountId, events: Number(events.n) }).toEqual({ accountId, events: 50 });
      const [clicks] = await ch.query<{ n: string }>(`SELECT count() n FROM ${ch.table("clicks")} WHERE link_id = {l:UUID}`, { l: linkId });
      expect(Number(clicks.n)).toBe(20);
      expect(journeyLink).toBeString();
    }
  });

  test("a new DATA_DIR against a ClickHouse that kept its data keeps every row", async () => {
    // A fresh instance (new disk) whose spool starts at segment 0, offset 0 again, like `a` did.
    const c = await createTestApp({}, { CLICKHOUSE_DATABASE: database });
    try {
      const { accountId, linkId } = await sameTraffic(c, 5, 20);
      expect(checkpointOf(c, "journey")).toEqual(checkpointOf(a, "journey"));
      const ch = c.runtime.deps.ch;
      const [events] = await ch.query<{ n: string }>(`SELECT count() n FROM ${ch.table("journey_events")} WHERE account_id = {a:UUID}`, {
        a: accountId,
      });
      expect(Number(events.n)).toBe(50);
      const [clicks] = await ch.query<{ n: string }>(`SELECT count() n FROM ${ch.table("clicks")} WHERE link_id = {l:UUID}`, { l: linkId });
      expect(Number(clicks.n)).toBe(20);
    } finally {
      await c.close();
    }
  });
});

describe("replays from one directory", () => {
  type Row = { seq: number; payload: string };
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const table = async (tableName: string) => {
    const name = ownTable(tableName);
    const ch = t.runtime.deps.ch;
    await ch.command(`CREATE TABLE ${ch.table(name)} (seq UInt64, payload String) ENGINE = MergeTree ORDER BY seq
      SETTINGS non_replicated_deduplication_window = 1000`);
    return {
      make: (dir: string, reconcile = false) =>
        new Spool<Row>({
          dir,
          name: "r",
          maxUnflushedBytes: 1 << 30,
          sink: clickhouseSink(ch, name, (rows: Row[]) => rows),
          reconcile: reconcile ? missingById<Row>(ch, name, "seq", "UInt64", (r) => r.seq) : undefined,
        }),
      rows: async () => (await ch.query<{ seq: string }>(`SELECT seq FROM ${ch.table(name)} ORDER BY seq`)).map((r) => Number(r.seq)),
    };
  };
  const rows3: Row[] = [
    { seq: 1, payload: "a" },
    { seq: 2, payload: "b" },
    { seq: 3, payload: "c" },
  ];
  const end = (JSON.stringify(rows3) + "\n").length;

  for (const reconcile of [false, true]) {
    test(`a chunk inserted just before a kill -9 is replayed under the same token and stored once (${reconcile ? "with" : "without"} row check)`, async () => {
      const { make, rows } = await table(`replay_${reconcile ? "rc" : "plain"}`);
      const dir = mkdtempSync(join(tmpdir(), "svc-spool-id-"));
      const first = make(dir);
      const id = first.id;
      await first.append(rows3);
      await first.flush();
      await first.close();
      // What a kill -9 between the insert and the checkpoint leaves: the chunk still pending.
      writeFileSync(join(dir, "checkpoint.json"), JSON.stringify({ segment: 0, offset: 0, pending: { segment: 0, start: 0, end } }));
      const second = make(dir, reconcile);
      expect(second.id).toBe(id);
      await second.flush();
      await second.append([{ seq: 4, payload: "d" }]);
      await second.close();
      expect(await rows()).toEqual([1, 2, 3, 4]);
    });
  }

  test("a spool written before ids existed upgrades: its in-flight chunk keeps the old token, later chunks get the id", async () => {
    const { make, rows } = await table("upgrade");
    const ch = t.runtime.deps.ch;
    const dir = mkdtempSync(join(tmpdir(), "svc-spool-legacy-"));
    // The old layout: a segment and a checkpoint, no spool-id.json; the chunk was inserted under the old token.
    writeFileSync(join(dir, "000000000000.log"), JSON.stringify(rows3) + "\n");
    writeFileSync(join(dir, "checkpoint.json"), JSON.stringify({ segment: 0, offset: 0, pending: { segment: 0, start: 0, end } }));
    await clickhouseSink(ch, ownTable("upgrade"), (r: Row[]) => r)(rows3, `r-0-0-${end}`);
    const tokens: string[] = [];
    const spool = new Spool<Row>({
      dir,
      name: "r",
      maxUnflushedBytes: 1 << 30,
      sink: async (records, token) => {
        tokens.push(token);
        await clickhouseSink(ch, ownTable("upgrade"), (r: Row[]) => r)(records, token);
      },
    });
    expect(existsSync(join(dir, "spool-id.json"))).toBe(true);
    await spool.flush();
    await spool.append([{ seq: 4, payload: "d" }]);
    await spool.close();
    expect(await rows()).toEqual([1, 2, 3, 4]);
    expect(tokens[0]).toBe(`r-0-0-${end}`);
    expect(tokens[1]).toBe(`r-${spool.id}-0-${end}-${end + JSON.stringify([{ seq: 4, payload: "d" }]).length + 1}`);
    // Reopened later: the id is the same one.
    const again = make(dir);
    expect(again.id).toBe(spool.id);
    await again.close();
  });

  test("a damaged id file stops the spool instead of inventing a new id", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-spool-bad-"));
    writeFileSync(join(dir, "spool-id.json"), JSON.stringify({ id: "nope" }));
    const { make } = await table("damaged");
    expect(() => make(dir)).toThrow(/spool-id.json/);
  });
});
