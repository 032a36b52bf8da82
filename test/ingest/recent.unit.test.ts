// The realtime reports' view of a spool (server/ingest/recent.ts): a record is held from its write until
// the flusher has stored past its end, and no longer than the window or the bound allows.
import { expect, test } from "bun:test";
import { RECENT_KEEP_MS, RecentUnflushed } from "../../server/ingest/recent";

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
