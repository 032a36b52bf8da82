// The embedded click insert's RowBinary rows, which ClickHouse reads through file(): every column reads
// back as the JSON text rows of a ClickHouse server would store it, and a chunk replayed under its token
// (a kill -9 between the insert and the spool's checkpoint) is stored once in `clicks` and in its views;
// the worker's file is removed once read.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp, type TestApp } from "../helpers/app";
import { rawClick, spoolClicks } from "../analytics/helpers";
import {
  CLICK_COLUMNS,
  CLICK_ROW_BINARY_STRUCTURE,
  clickRowLine,
  type ClickRow,
  writeClickRowBinary,
} from "../../server/ingest/clicks/rows";
import { insertClickLines, insertFromFileStatement } from "../../server/ingest/clicks/repository";
import { RowBinaryWriter } from "../../server/storage/clickhouse/row-binary";

let t: TestApp;
const dir = mkdtempSync(join(tmpdir(), "svc-click-binary-"));
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const ODD = "a\tb\\nc\nd\re\\ 'quoted' \"double\" ünïcødé 🚀 \u0000 end";
function rows(account: string): ClickRow[] {
  const base = Date.UTC(2026, 10, 30, 23, 59, 59, 999);
  return [
    {
      click_id: "0123ABCD-89ab-cdef-0123-456789abcdef",
      timestamp: base,
      account_id: account,
      link_id: crypto.randomUUID(),
      domain: "sho.rt",
      visitor_hash: "18446744073709551615",
      is_bot: 1,
      bot_kind: "crawler",
      device_type: "desktop",
      browser: "Chrome",
      browser_version: "120.0.1",
      os: "Windows",
      os_version: "10",
      country_code: "DE",
      region: "Bavaria",
      city: "München",
      referrer: "ref.example",
      referrer_url: `https://ref.example/${ODD}`,
      language: ODD,
      query: `q=${ODD}${"x".repeat(300)}`,
      source: "qr",
      variant: `https://v.example/${"é".repeat(70)}`,
      rule: 255,
    },
    {
      click_id: crypto.randomUUID(),
      timestamp: base + 1, // the next month: a second partition
      account_id: account,
      link_id: crypto.randomUUID(),
      domain: "",
      visitor_hash: "0",
      is_bot: 0,
      bot_kind: "",
      device_type: "",
      browser: "",
      browser_version: "",
      os: "",
      os_version: "",
      country_code: "",
      region: "",
      city: "",
      referrer: "",
      referrer_url: "",
      language: "",
      query: "",
      source: "link",
      variant: "",
      rule: 0,
    },
  ];
}

function insertBinary(account: string, token: string, file: string) {
  const w = new RowBinaryWriter(64);
  const chunk = rows(account);
  for (const r of chunk) writeClickRowBinary(w, r);
  writeFileSync(file, w.bytes());
  const ch = t.runtime.deps.ch;
  return ch.command(insertFromFileStatement(ch.table("clicks"), CLICK_COLUMNS, CLICK_ROW_BINARY_STRUCTURE, file, chunk.length, token));
}

const stored = async (account: string) => {
  const ch = t.runtime.deps.ch;
  return ch.query<Record<string, unknown>>(
    `SELECT * EXCEPT (account_id, link_id, click_id, visitor_hash), toString(visitor_hash) AS visitor_hash, lower(toString(click_id)) = lower({first:String}) AS first
     FROM ${ch.table("clicks")} WHERE account_id = {a:UUID} ORDER BY timestamp`,
    { a: account, first: rows(account)[0].click_id },
  );
};

test("every column of RowBinary rows reads back as the JSON text rows store it", async () => {
  const binaryAccount = crypto.randomUUID();
  const textAccount = crypto.randomUUID();
  await insertBinary(binaryAccount, `binary-${binaryAccount}`, join(dir, "a.rowbinary"));
  const text = rows(textAccount);
  await insertClickLines(t.runtime.deps.ch, text.map(clickRowLine).join("\n"), text.length, `text-${textAccount}`);
  const fromBinary = await stored(binaryAccount);
  expect(fromBinary).toHaveLength(2);
  expect(fromBinary).toEqual(await stored(textAccount));
  expect(fromBinary[0]).toMatchObject({ visitor_hash: "18446744073709551615", rule: 255, first: 1, language: ODD, city: "München" });
});

test("a chunk replayed under its token is stored once in clicks and in the six rollups; another token stores it again", async () => {
  const account = crypto.randomUUID();
  const ch = t.runtime.deps.ch;
  const counts = async () => {
    const [r] = await ch.query<Record<string, string>>(
      `SELECT
        (SELECT count() FROM ${ch.table("clicks")} WHERE account_id = {a:UUID}) AS clicks,
        (SELECT sum(clicks) FROM ${ch.table("clicks_daily")} WHERE account_id = {a:UUID}) AS daily,
        (SELECT sum(clicks) FROM ${ch.table("clicks_hourly")} WHERE account_id = {a:UUID}) AS hourly,
        (SELECT sum(clicks) FROM ${ch.table("clicks_daily_links")} WHERE account_id = {a:UUID}) AS links,
        (SELECT sum(clicks) FROM ${ch.table("clicks_daily_geo")} WHERE account_id = {a:UUID}) AS geo,
        (SELECT sum(clicks) FROM ${ch.table("clicks_daily_devices")} WHERE account_id = {a:UUID}) AS devices,
        (SELECT sum(clicks) FROM ${ch.table("clicks_daily_referrers")} WHERE account_id = {a:UUID}) AS referrers`,
      { a: account },
    );
    return Object.values(r).map(Number);
  };
  await insertBinary(account, `chunk-${account}`, join(dir, "b.rowbinary"));
  expect(await counts()).toEqual([2, 2, 2, 2, 2, 2, 2]);
  await insertBinary(account, `chunk-${account}`, join(dir, "b.rowbinary"));
  expect(await counts()).toEqual([2, 2, 2, 2, 2, 2, 2]);
  await insertBinary(account, `other-${account}`, join(dir, "b.rowbinary"));
  expect(await counts()).toEqual([4, 4, 4, 4, 4, 4, 4]);
});

test("a path file() would misread is refused", () => {
  for (const bad of ["relative/x.rowbinary", "/tmp/a*b", "/tmp/{a,b}", "/tmp/it's", "/tmp/a\\b"]) {
    expect(() => insertFromFileStatement("db.clicks", CLICK_COLUMNS, CLICK_ROW_BINARY_STRUCTURE, bad, 1, "tok")).toThrow(
      "unexpected insert file path",
    );
  }
});

test("the flush worker's insert file is gone once its chunk is stored (with a ClickHouse server: no file, the rows sent)", async () => {
  const ch = t.runtime.deps.ch;
  const chdbPath =
    ch.kind === "chdb"
      ? (ch.client as unknown as { connection: { chdb: { session: { path: string } } } }).connection.chdb.session.path
      : null;
  const account_id = crypto.randomUUID();
  const clicks = Array.from({ length: 3 }, () => rawClick({ account_id, link_id: crypto.randomUUID() }));
  await spoolClicks(t, clicks);
  const [{ n }] = await ch.query<{ n: string }>(`SELECT count() AS n FROM ${ch.table("clicks")} WHERE account_id = {a:UUID}`, {
    a: account_id,
  });
  expect(Number(n)).toBe(3);
  if (chdbPath === null) return; // a server's rows go over HTTP as text: the worker has no file to leave
  const files = join(chdbPath, "insert-files");
  expect(existsSync(files)).toBe(true); // the worker took the RowBinary path
  expect(readdirSync(files)).toEqual([]);
});
