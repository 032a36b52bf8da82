// The realtime reports' view of a spool (server/ingest/recent.ts): a record is held from its write until
// the flusher has stored past its end, and no longer than the window or the bound allows.
import { expect, test } from "bun:test";
import { RECENT_KEEP_MS, RecentUnflushed } from "../../server/ingest/recent";
import { journeyRealtimeRow, toJourneyRow } from "../../server/ingest/journey/rows";
import { heldJourneyEvents } from "../../server/realtime/held";
import { chTime } from "../../server/storage/clickhouse/format";

/** A spool as the tally sees it: writes with their end in the log, and how far it is stored. */
function fakeSpool() {
  let listener: (records: readonly number[], end: number) => void = () => {};
  const spool = {
    flushedTo: 0,
    written: 0,
    onWritten: (l: typeof listener) => {
      listener = l;
    },
    write(records: number[], bytes = 10 * records.length) {
      spool.written += bytes;
      listener(records, spool.written);
    },
  };
  return spool;
}

test("held from the write until stored past it, in order", () => {
  const s = fakeSpool();
  const recent = new RecentUnflushed<number>(s);
  s.write([1, 2]); // ends at 20
  s.write([3]); // ends at 30
  expect(recent.unflushed()).toEqual([1, 2, 3]);
  s.flushedTo = 19; // a chunk that stops short of the write's end stores none of it
  expect(recent.unflushed()).toEqual([1, 2, 3]);
  s.flushedTo = 20;
  expect(recent.unflushed()).toEqual([3]);
  s.flushedTo = 30;
  expect(recent.unflushed()).toEqual([]);
  s.write([4]);
  expect(recent.unflushed()).toEqual([4]);
});

test("bounded: past the bound the oldest unflushed are dropped and counted; none older than the window", () => {
  const s = fakeSpool();
  const recent = new RecentUnflushed<number>(s, 1000);
  for (let i = 0; i < 3000; i++) s.write([i]);
  const held = recent.unflushed();
  expect(held.length).toBe(1000);
  expect(held[0]).toBe(2000);
  expect(recent.dropped).toBe(2000);
  expect(recent.unflushed(Date.now() + RECENT_KEEP_MS + 1)).toEqual([]);
});

test("keep: a stream holds what its reader needs instead of the record", () => {
  const s = fakeSpool();
  const recent = new RecentUnflushed<number, string>(s, 1000, (n) => `#${n}`);
  s.write([1, 2]);
  s.write([3]);
  expect(recent.unflushed()).toEqual(["#1", "#2", "#3"]);
  s.flushedTo = 20;
  expect(recent.unflushed()).toEqual(["#3"]);
});

test("journey events held as their realtime columns give the realtime rows of the whole rows", () => {
  const account = "0b7f3c5e-2222-4a2b-9c3d-bbbbbbbbbbbb";
  const link = "0b7f3c5e-1111-4a2b-9c3d-aaaaaaaaaaaa";
  const other = "0b7f3c5e-3333-4a2b-9c3d-cccccccccccc";
  const now = Date.parse("2026-11-29T17:30:20Z");
  const rows = [
    toJourneyRow("e1", now, chTime(now), account, {
      link_id: link,
      visitor_id: "v1",
      event_type: "page_view",
      page_url: "https://a.example/1",
      properties: { x: 1 },
    }),
    toJourneyRow("e2", now, chTime(now), account, {
      link_id: link,
      visitor_id: "v2",
      event_type: "custom",
      event_name: "cta",
      timestamp: "2026-11-29T17:29:10.000Z",
    }),
    toJourneyRow("e3", now, chTime(now), account, { link_id: other, visitor_id: "v3", event_type: "page_view" }),
    toJourneyRow("e4", now, chTime(now), account, {
      link_id: link,
      visitor_id: "v4",
      event_type: "page_view",
      timestamp: "2026-11-29T15:00:00.000Z",
    }),
  ];
  const kept = rows.map(journeyRealtimeRow);
  expect(kept.every((r) => r.length === 6)).toBe(true);
  const w = { accountId: account, linkIds: [link], sinceMs: now - 30 * 60_000, untilMs: now + 60_000, recentFromMs: now - 5 * 60_000 };
  const held = heldJourneyEvents(kept, w);
  expect(held).toEqual(heldJourneyEvents(rows, w));
  expect(held).toEqual([
    { id: "e1", minute: Math.floor(now / 60_000), visitor: "v1", recent: true },
    { id: "e2", minute: Math.floor(Date.parse("2026-11-29T17:29:10Z") / 60_000), visitor: "v2", recent: true },
  ]);
});
