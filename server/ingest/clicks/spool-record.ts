// The clicks spool's line format. A redirect writes its click as a fixed-layout binary record (no JSON:
// the redirect's CPU is the product): the marker byte 0x01, the time, then every field as its UTF-8
// bytes behind a length, in a fixed order. Lengths and numbers are 7-bit groups with the high bit set,
// so no byte of a record but its last is a newline: the spool's framing (whole lines, a torn last line
// cut off at start-up) holds as it did for JSON. Lines that start with `[` are JSON arrays of clicks:
// what durable appends (tests, tools) write, and what every spool written before this format holds.
import type { RawClick } from "./record";

/** The first byte of a binary click record (a JSON line starts with `[`). */
export const BINARY_CLICK = 0x01;
const NEWLINE = 0x0a;
const OPEN_BRACKET = 0x5b;

/** 3 bytes of 7 bits: a field holds at most 2 MB (request headers and URLs are far shorter). */
const LEN_BYTES = 3;
const MAX_FIELD = (1 << 21) - 1;
/** 7 bytes of 7 bits: epoch milliseconds up to 2^49 (year 19800). */
const TS_BYTES = 7;

// Fixed order; the optional fields are written empty when absent.
const STRING_FIELDS = [
  "click_id",
  "account_id",
  "link_id",
  "domain",
  "ua",
  "ip",
  "referrer",
  "lang",
  "query",
  "geo_country",
  "ch_mobile",
  "ch_platform",
  "ch_ua",
  "src",
  "variant",
] as const satisfies readonly (keyof RawClick)[];
const FIXED_BYTES = 1 + TS_BYTES + STRING_FIELDS.length * LEN_BYTES + LEN_BYTES + 1;

/** Returned by `encodeClick` when a value holds a newline (no HTTP request can send one): write it as JSON. */
export const NOT_LINE_SAFE = -1;

function putLength(buf: Buffer, at: number, n: number): void {
  buf[at] = 0x80 | (n >>> 14);
  buf[at + 1] = 0x80 | ((n >>> 7) & 0x7f);
  buf[at + 2] = 0x80 | (n & 0x7f);
}

/** Buffer's native UTF-8 writer without the encoding argument's parsing (half the cost of `write(s, at, "utf8")`). */
type Utf8Writer = Buffer & { utf8Write(s: string, offset: number): number };

function putString(buf: Utf8Writer, at: number, s: string | undefined): number {
  if (!s) {
    putLength(buf, at, 0);
    return at + LEN_BYTES;
  }
  const n = buf.utf8Write(s, at + LEN_BYTES);
  if (n > MAX_FIELD) throw new Error(`click field of ${n} bytes is longer than the spool record allows`);
  putLength(buf, at, n);
  return at + LEN_BYTES + n;
}

/** An upper bound of the record's bytes (UTF-8 takes at most 3 bytes per UTF-16 unit). */
export function clickRecordBound(c: RawClick): number {
  const chars =
    c.click_id.length +
    c.account_id.length +
    c.link_id.length +
    c.domain.length +
    c.ua.length +
    c.ip.length +
    c.referrer.length +
    c.lang.length +
    c.query.length +
    (c.geo_country?.length ?? 0) +
    (c.ch_mobile?.length ?? 0) +
    (c.ch_platform?.length ?? 0) +
    (c.ch_ua?.length ?? 0) +
    (c.src?.length ?? 0) +
    (c.variant?.length ?? 0);
  return FIXED_BYTES + 3 * chars;
}

/**
 * Writes the click's line at `at` (the caller leaves `clickRecordBound` bytes); returns where it ends,
 * or NOT_LINE_SAFE (nothing valid written) when a value holds a newline.
 */
export function encodeClick(c: RawClick, buffer: Buffer, at: number): number {
  const buf = buffer as Utf8Writer;
  const start = at;
  buf[at++] = BINARY_CLICK;
  let ts = c.ts;
  for (let i = TS_BYTES - 1; i >= 0; i--) {
    buf[at + i] = 0x80 | (ts % 128);
    ts = Math.floor(ts / 128);
  }
  at += TS_BYTES;
  // In STRING_FIELDS' order, unrolled (a loop over the names reads the record by computed keys).
  at = putString(buf, at, c.click_id);
  at = putString(buf, at, c.account_id);
  at = putString(buf, at, c.link_id);
  at = putString(buf, at, c.domain);
  at = putString(buf, at, c.ua);
  at = putString(buf, at, c.ip);
  at = putString(buf, at, c.referrer);
  at = putString(buf, at, c.lang);
  at = putString(buf, at, c.query);
  at = putString(buf, at, c.geo_country);
  at = putString(buf, at, c.ch_mobile);
  at = putString(buf, at, c.ch_platform);
  at = putString(buf, at, c.ch_ua);
  at = putString(buf, at, c.src);
  at = putString(buf, at, c.variant);
  putLength(buf, at, c.rule ?? 0);
  at += LEN_BYTES;
  buf[at] = NEWLINE;
  // The search stops at the record's own newline at the latest.
  if (buf.indexOf(NEWLINE, start) !== at) return NOT_LINE_SAFE;
  return at + 1;
}

const getLength = (b: Uint8Array, at: number) => ((b[at] & 0x7f) << 14) | ((b[at + 1] & 0x7f) << 7) | (b[at + 2] & 0x7f);

function decodeBinary(b: Buffer, at: number, end: number): RawClick {
  let ts = 0;
  for (let i = 0; i < TS_BYTES; i++) ts = ts * 128 + (b[at + 1 + i] & 0x7f);
  let p = at + 1 + TS_BYTES;
  const values: string[] = [];
  for (let i = 0; i < STRING_FIELDS.length; i++) {
    const n = getLength(b, p);
    p += LEN_BYTES;
    values.push(n ? (b as Buffer & { utf8Slice(start: number, end: number): string }).utf8Slice(p, p + n) : "");
    p += n;
  }
  const rule = getLength(b, p);
  p += LEN_BYTES;
  if (p !== end) throw new Error(`malformed click record (${end - at} bytes, fields end at ${p - at})`);
  const [click_id, account_id, link_id, domain, ua, ip, referrer, lang, query, geo_country, ch_mobile, ch_platform, ch_ua, src, variant] =
    values;
  const c: RawClick = { click_id, ts, account_id, link_id, domain, ua, ip, referrer, lang, query };
  if (geo_country) c.geo_country = geo_country;
  if (ch_mobile) c.ch_mobile = ch_mobile;
  if (ch_platform) c.ch_platform = ch_platform;
  if (ch_ua) c.ch_ua = ch_ua;
  if (src) c.src = src as RawClick["src"];
  if (variant) c.variant = variant;
  if (rule) c.rule = rule;
  return c;
}

/** A spool chunk (whole lines of either format, in any mix) as clicks, in order. */
export function decodeClicks(bytes: Buffer): RawClick[] {
  const records: RawClick[] = [];
  let at = 0;
  while (at < bytes.length) {
    let end = bytes.indexOf(NEWLINE, at);
    if (end < 0) end = bytes.length;
    const first = bytes[at];
    if (first === BINARY_CLICK) records.push(decodeBinary(bytes, at, end));
    else if (first === OPEN_BRACKET) for (const r of JSON.parse(bytes.toString("utf8", at, end)) as RawClick[]) records.push(r);
    else if (end > at) throw new Error(`unknown clicks spool line starting with byte ${first}`);
    at = end + 1;
  }
  return records;
}
