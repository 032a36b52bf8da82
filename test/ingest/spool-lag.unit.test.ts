// The spool's lag (spool_lag_seconds) is the age of the oldest byte not yet in ClickHouse, also while
// the flusher is behind by many chunks (it used to restart from the last chunk stored).
import { expect, test } from "bun:test";
import { backlogAgeSeconds, markFlushed, markWritten, type Backlog } from "../../server/ingest/spool/segments";

test("lag: the age of the oldest unflushed write, as chunks are stored", () => {
  const b: Backlog = { bytes: 0, written: 0, marks: [] };
  expect(backlogAgeSeconds(b, 0)).toBe(0);
  markWritten(b, 100, 0);
  markWritten(b, 100, 20); // within the same 50 ms group
  markWritten(b, 300, 1_000);
  markWritten(b, 300, 2_000);
  expect(b.bytes).toBe(800);
  expect(backlogAgeSeconds(b, 3_000)).toBe(3);
  markFlushed(b, 150); // part of the first group: its oldest byte is still waiting
  expect(backlogAgeSeconds(b, 3_000)).toBe(3);
  markFlushed(b, 50); // the first group done
  expect(backlogAgeSeconds(b, 3_000)).toBe(2);
  markFlushed(b, 300);
  expect(backlogAgeSeconds(b, 3_000)).toBe(1);
  markFlushed(b, 300);
  expect(b.bytes).toBe(0);
  expect(backlogAgeSeconds(b, 3_000)).toBe(0);
  expect(b.marks).toEqual([]);
});

test("lag: a backlog recovered at start-up counts from the start", () => {
  const b: Backlog = { bytes: 500, written: 500, marks: [500, 10_000] };
  markWritten(b, 100, 12_000);
  expect(backlogAgeSeconds(b, 15_000)).toBe(5);
  markFlushed(b, 500);
  expect(backlogAgeSeconds(b, 15_000)).toBe(3);
});
