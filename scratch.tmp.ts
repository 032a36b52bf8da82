import { Session } from "chdb";
const s = new Session("/tmp/exp/chdb1");
const q = (sql: string) => s.query(sql, "CSV");
console.log(q("SELECT version(), formatDateTime(toDateTime64('2026-11-29 10:00:01.005',3,'UTC'), '%Y-%m-%dT%H:%i:%S.%fZ')"));
s.query(`DROP TABLE IF EXISTS c`);
s.query(`CREATE TABLE c (click_id UUID, timestamp DateTime64(3,'UTC'), account_id UUID, link_id UUID, domain LowCardinality(String), is_bot UInt8, bot_kind LowCardinality(String), device_type LowCardinality(String), browser LowCardinality(String), browser_version String, os LowCardinality(String), os_version String, country_code LowCardinality(String), region String, city String, referrer String, referrer_url String, language LowCardinality(String)) ENGINE=MergeTree PARTITION BY toYYYYMM(timestamp) ORDER BY (account_id, toDate(timestamp), link_id, timestamp)`);
let t0 = performance.now();
s.query(`INSERT INTO c SELECT generateUUIDv4(), toDateTime64('2026-10-01 00:00:00',3,'UTC') + toIntervalMillisecond(number*2592), toUUID('00000000-0000-0000-0000-000000000001'), toUUID(concat('00000000-0000-0000-0000-0000000000', leftPad(toString(number % 50),2,'0'))), '', number%10=0, if(number%10=0,'crawler',''), 'desktop','Chrome','120.0','Windows','10','US','','', 'google.com', concat('https://google.com/search?q=', toString(number)), 'en' FROM numbers(1000000)`);
console.log("insert", performance.now() - t0);
const cols = `toString(click_id), formatDateTime(timestamp, '%Y-%m-%dT%H:%i:%S.%fZ'), toString(link_id), domain, country_code, region, city, device_type, browser, browser_version, os, os_version, referrer, referrer_url, language, is_bot, bot_kind`;
t0 = performance.now();
const full = s.query(`SELECT ${cols} FROM c WHERE account_id = '00000000-0000-0000-0000-000000000001' AND timestamp >= '2026-10-01' AND timestamp < '2026-11-01' FORMAT CSV`, "CSV");
console.log("full csv", performance.now() - t0, full.length);
t0 = performance.now();
const fullSorted = s.query(`SELECT ${cols} FROM c WHERE account_id = '00000000-0000-0000-0000-000000000001' AND timestamp >= '2026-10-01' AND timestamp < '2026-11-01' ORDER BY timestamp, click_id FORMAT CSV`, "CSV");
console.log("full sorted csv", performance.now() - t0, fullSorted.length);
// chunked by key order
t0 = performance.now();
let cur: [string, string, string, string] | null = null; let total = 0, n = 0;
for (;;) {
  const where = cur ? `AND (toDate(timestamp) > '${cur[0]}' OR (toDate(timestamp) = '${cur[0]}' AND (link_id > '${cur[1]}' OR (link_id = '${cur[1]}' AND (timestamp > '${cur[2]}' OR (timestamp = '${cur[2]}' AND click_id > '${cur[3]}'))))))` : "";
  const out = s.query(`SELECT ${cols}, toString(toDate(timestamp)) d, toString(timestamp) ts FROM c WHERE account_id = '00000000-0000-0000-0000-000000000001' AND timestamp >= '2026-10-01' AND timestamp < '2026-11-01' ${where} ORDER BY toDate(timestamp), link_id, timestamp, click_id LIMIT 50000 FORMAT CSV`, "CSV");
  n++;
  if (!out.length) break;
  total += out.length;
  const last = out.trimEnd().split("\n").pop()!;
  const f = last.split(",").map((x) => x.replace(/"/g, ""));
  cur = [f[f.length - 2], f[2], f[f.length - 1], f[0]];
}
console.log("chunked key order", performance.now() - t0, total, n);
// chunked by (timestamp, click_id)
t0 = performance.now(); cur = null; total = 0; n = 0;
let c2: [string, string] | null = null;
for (;;) {
  const where = c2 ? `AND timestamp >= '${c2[0]}' AND (timestamp, click_id) > (toDateTime64('${c2[0]}',3,'UTC'), toUUID('${c2[1]}'))` : "";
  const out = s.query(`SELECT ${cols}, toString(timestamp) ts FROM c WHERE account_id = '00000000-0000-0000-0000-000000000001' AND timestamp >= '2026-10-01' AND timestamp < '2026-11-01' ${where} ORDER BY timestamp, click_id LIMIT 50000 FORMAT CSV`, "CSV");
  n++;
  if (!out.length) break;
  total += out.length;
  const last = out.trimEnd().split("\n").pop()!;
  const f = last.split(",").map((x) => x.replace(/"/g, ""));
  c2 = [f[f.length - 1], f[0]];
}
console.log("chunked ts order", performance.now() - t0, total, n);
