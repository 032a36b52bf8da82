// A million clicks exported over real HTTP in constant memory (docs/exports.md "Raw exports"): the
// server reads them in chunks and sends each as the client takes it, so the process never holds the
// export (about 230 MB of CSV here) but a few chunks of it. Memory is the process's resident set,
// sampled as the body arrives: it covers the server, chDB and the client, which share this process.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, listen, type TestApp } from "../helpers/app";
import { P } from "../analytics/helpers";
import { links } from "../../server/storage/postgres/schema";

const ROWS = 1_000_000;
let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let key: string;
let start = "";
let end = "";

beforeAll(async () => {
  t = await createTestApp({}, {}, { jobs: false });
  const acc = await t.createAccount({ tier: "scale" });
  key = acc.key;
  const [{ id: linkId }] = await t.runtime.deps.pg.db
    .insert(links)
    .values({ accountId: acc.accountId, shortCode: "million", originalUrl: "https://example.com/" })
    .returning({ id: links.id });
  const ch = t.runtime.deps.ch;
  // A million clicks over the last 20 days, some with text a spreadsheet would run, the first 120,000
  // within one hour (more than one read holds: that hour is read by cursor) three to a millisecond.
  const from = Date.now() - 20 * 86_400_000;
  await ch.command(
    `INSERT INTO ${ch.table("clicks")} (click_id, timestamp, account_id, link_id, domain, visitor_hash, is_bot, bot_kind, device_type,
       browser, browser_version, os, os_version, country_code, region, city, referrer, referrer_url, language, query)
     SELECT generateUUIDv4(number),
       fromUnixTimestamp64Milli(toInt64(if(number < 120000, {from:Int64} + intDiv(number, 3) * 75, {from:Int64} + 3600000 + number * 1700))), {account:UUID}, {link:UUID}, '',
       cityHash64(number), number % 10 = 0, if(number % 10 = 0, 'crawler', ''), 'desktop', 'Chrome', '120.0', 'Windows', '10', 'US',
       '', '', 'news.example', concat(if(number % 1000 = 0, '=1+1 ', 'https://news.example/item?'), 'id=', toString(number)), 'en', ''
     FROM numbers({rows:UInt64})`,
    { from, account: acc.accountId, link: linkId, rows: ROWS },
  );
  start = new Date(from).toISOString().slice(0, 10);
  end = new Date().toISOString().slice(0, 10);
  server = listen(t);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await t?.close();
});

const rssMb = () => process.memoryUsage.rss() / 1024 / 1024;

test("a million rows stream in constant memory, each once, in order, across reads by window and by cursor", async () => {
  const url = `${server.url}${P}/exports/clicks?start_date=${start}&end_date=${end}`;
  const headers = { "x-api-key": key, "accept-encoding": "identity" };
  // A first small export warms the caches that any export uses.
  await (await fetch(`${url}&limit=10`, { headers })).text();
  Bun.gc(true);
  const before = rssMb();
  const res = await fetch(url, { headers });
  expect(res.status).toBe(200);
  let bytes = 0;
  let lines = 0;
  let peak = before;
  let formulas = 0;
  let tail = "";
  const decoder = new TextDecoder();
  let previous = "";
  let ordered = true;
  let sum = 0;
  let xor = 0;
  for await (const part of res.body!) {
    bytes += part.byteLength;
    const text = tail + decoder.decode(part, { stream: true });
    const rows = text.split("\r\n");
    tail = rows.pop()!;
    for (const row of rows) {
      lines++;
      if (row.includes(",\"'=1+1 id=")) formulas++;
      const n = /id=([0-9]+)"/.exec(row);
      if (n) {
        sum += Number(n[1]);
        xor ^= Number(n[1]);
      }
      const key = row.slice(0, 66);
      if (lines > 2 && row.slice(40, 64) < previous.slice(40, 64)) ordered = false;
      previous = key;
    }
    peak = Math.max(peak, rssMb());
  }
  expect(tail).toBe("");
  expect(lines).toBe(ROWS + 1);
  expect(formulas).toBe(ROWS / 1000);
  expect(ordered).toBe(true);
  // Each row once: the numbers 0 … ROWS-1 in the rows add up (and xor) to what they should.
  let expectedXor = 0;
  for (let i = 0; i < ROWS; i++) expectedXor ^= i;
  expect(sum).toBe((ROWS * (ROWS - 1)) / 2);
  expect(xor).toBe(expectedXor);
  const growth = peak - before;
  console.log(`exported ${(bytes / 1e6).toFixed(0)} MB; resident ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB at the peak`);
  // Holding the export would add its 239 MB at least twice (chDB's result and our copy); a few reads of
  // 50,000 rows, chDB's sort of the dense hour and the client's garbage stay well under that.
  expect(bytes).toBeGreaterThan(200e6);
  expect(growth).toBeLessThan(160);
}, 300_000);
