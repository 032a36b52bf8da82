// The clicks spool's binary record: what a redirect writes is what the flusher reads, line-safe for any
// header text, beside the JSON lines of older spools; a torn last record is cut off at start-up.
import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { Spool } from "../../server/ingest/spool";
import type { RawClick } from "../../server/ingest/clicks/record";
import { BINARY_CLICK, clickRecordBound, decodeClicks, encodeClick, NOT_LINE_SAFE } from "../../server/ingest/clicks/spool-record";
import { nextClickId } from "../../server/redirect/click-id";

const click = (over: Partial<RawClick> = {}): RawClick => ({
  click_id: nextClickId(),
  ts: 1_796_000_000_123,
  account_id: "a6b1a1f0-8a4e-4a4e-9a4e-0a4e4a4e4a4e",
  link_id: "a6b1a1f0-8a4e-4a4e-9a4e-0a4e4a4e4a4f",
  domain: "",
  ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)",
  ip: "203.0.113.9",
  referrer: "https://news.example/ünïcode?q=1",
  lang: "de-CH,de;q=0.9",
  query: "utm_source=x",
  ...over,
});

const encode = (c: RawClick) => {
  const buf = Buffer.alloc(clickRecordBound(c));
  const end = encodeClick(c, buf, 0);
  return end < 0 ? null : buf.subarray(0, end);
};

describe("binary click record", () => {
  test("a click with every field, and one with none of the optional ones, read back as written", () => {
    const full = click({
      geo_country: "CH",
      ch_mobile: "?1",
      ch_platform: '"iOS"',
      ch_ua: '"Safari";v="17"',
      src: "qr",
      variant: "https://b.example/",
      rule: 5,
    });
    const plain = click({ ua: "", referrer: "", lang: "" });
    const bytes = Buffer.concat([encode(full)!, encode(plain)!]);
    expect(bytes[0]).toBe(BINARY_CLICK);
    expect(decodeClicks(bytes)).toEqual([full, plain]);
  });

  test("whatever the header values hold, the only newline is the record's last byte and it reads back", () => {
    fc.assert(
      fc.property(
        fc.record({
          ua: fc.string({ unit: "binary" }),
          referrer: fc.string({ unit: "grapheme" }),
          query: fc.string(),
          ts: fc.integer({ min: 0, max: 2 ** 45 }),
        }),
        (v) => {
          const c = click(v);
          const line = encode(c);
          const hasNewline = [v.ua, v.referrer, v.query].some((s) => s.includes("\n"));
          if (hasNewline) return expect(line).toBeNull();
          expect(line!.indexOf(0x0a)).toBe(line!.length - 1);
          const back = decodeClicks(line!)[0];
          expect(back).toEqual({ ...c, ua: back.ua, referrer: back.referrer, query: back.query });
          // Lone surrogates become U+FFFD in UTF-8; every other string is kept exactly.
          expect(back.ua).toBe(Buffer.from(v.ua, "utf8").toString("utf8"));
          expect(back.referrer).toBe(v.referrer);
        },
      ),
      { numRuns: 500 },
    );
  });

  test("the JSON lines of an older spool and binary records, mixed in one chunk, read in order", () => {
    const a = click();
    const b = click({ variant: "x" });
    const c = click({ rule: 2 });
    const bytes = Buffer.concat([Buffer.from(`[${JSON.stringify(a)}]\n`), encode(b)!, Buffer.from(`${JSON.stringify([c, a])}\n`)]);
    expect(decodeClicks(bytes)).toEqual([a, b, c, a]);
  });

  test("click ids are random UUIDs: distinct, and no id tells its neighbours", () => {
    const ids = Array.from({ length: 10_000 }, nextClickId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Consecutive ids share no prefix beyond chance (a counter-based id shares 24 characters).
    const shared = ids.slice(1).filter((id, i) => id.slice(0, 8) === ids[i].slice(0, 8)).length;
    expect(shared).toBeLessThan(3);
  });
});

describe("a spool with the binary record", () => {
  const open = (dir: string, received: RawClick[]) =>
    new Spool<RawClick>({
      dir,
      name: "clicks",
      maxUnflushedBytes: 1 << 30,
      segmentBytes: 1024,
      encoder: { bound: clickRecordBound, encode: encodeClick },
      parse: decodeClicks,
      sink: async (records) => {
        received.push(...records);
      },
    });

  test("records of a turn, a record that cannot be binary, and durable appends all reach the sink once, in order", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-click-record-"));
    try {
      const received: RawClick[] = [];
      const spool = open(dir, received);
      const turn = Array.from({ length: 30 }, (_, i) => click({ rule: i + 1 }));
      await Promise.all(turn.map((c) => spool.appendSoon(c)));
      const odd = click({ referrer: "a\nb" });
      await spool.appendSoon(odd);
      const durable = [click(), click()];
      await spool.append(durable);
      await spool.flush();
      await spool.close();
      expect(received).toEqual([...turn, odd, ...durable]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a binary record torn by a crash is cut off at start-up; the whole ones before it are stored", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-click-record-"));
    try {
      const first = open(dir, []);
      const whole = [click(), click({ variant: "b" })];
      for (const c of whole) await first.appendSoon(c);
      // What a kill -9 mid-write leaves: the start of a third record, no newline.
      appendFileSync(join(dir, "000000000000.log"), encode(click())!.subarray(0, 40));
      const received: RawClick[] = [];
      const second = open(dir, received);
      await second.flush();
      await second.close();
      expect(received).toEqual(whole);
      expect(readFileSync(join(dir, "000000000000.log")).at(-1)).toBe(0x0a);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
