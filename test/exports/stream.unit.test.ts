// The pure parts of the exports: how hours pack into reads, how a chunk's last row is found (its
// cursor), and which cells are neutralised for spreadsheets.
import { describe, expect, test } from "bun:test";
import { lastRowCursor, planWindows } from "../../server/exports/stream";
import { neutralizeFormula } from "../../server/http/csv-cells";

const H = 3600;

describe("planWindows", () => {
  test("consecutive hours share a read up to the limit; a bigger hour is a read alone", () => {
    const hours = [
      { hour: 0, rows: 40 },
      { hour: H, rows: 50 },
      { hour: 5 * H, rows: 20 },
      { hour: 6 * H, rows: 500 },
      { hour: 7 * H, rows: 1 },
    ];
    expect(planWindows(hours, 100)).toEqual([
      { startMs: 0, endMs: 2 * H * 1000, rows: 90 },
      { startMs: 5 * H * 1000, endMs: 6 * H * 1000, rows: 20 },
      { startMs: 6 * H * 1000, endMs: 7 * H * 1000, rows: 500 },
      { startMs: 7 * H * 1000, endMs: 8 * H * 1000, rows: 1 },
    ]);
    expect(planWindows([], 100)).toEqual([]);
  });
});

describe("lastRowCursor", () => {
  const id1 = "0b6a2c1e-5d1f-4f6e-9c1d-2a3b4c5d6e7f";
  const id2 = "9f8e7d6c-5b4a-4321-8fed-cba987654321";
  test("CSV: the last row, even when a quoted cell holds line breaks and what looks like a row", () => {
    const tricky = `line\r\n""${id1}"",""2026-01-01T00:00:00.000Z""`;
    const csv = `"${id1}","2026-11-29T10:00:00.001Z","a"\r\n"${id2}","2026-11-29T10:00:00.002Z","${tricky}"\r\n`;
    expect(lastRowCursor(Buffer.from(csv), "csv")).toEqual({ id: id2, timestamp: "2026-11-29T10:00:00.002Z" });
    const one = `"${id1}","2026-11-29T10:00:00.001Z","x"\r\n`;
    expect(lastRowCursor(Buffer.from(one), "csv")).toEqual({ id: id1, timestamp: "2026-11-29T10:00:00.001Z" });
  });
  test("NDJSON: the last line", () => {
    const nd = `{"click_id":"${id1}","timestamp":"2026-11-29T10:00:00.001Z"}\n{"event_id":"${id2}","timestamp":"2026-11-29T10:00:00.002Z","x":"\\n"}\n`;
    expect(lastRowCursor(Buffer.from(nd), "ndjson")).toEqual({ id: id2, timestamp: "2026-11-29T10:00:00.002Z" });
  });
});

describe("neutralizeFormula", () => {
  test("=, +, -, @, tab and CR at the start get an apostrophe; anything else is left alone", () => {
    for (const s of ["=1+1", "+1", "-2", "@SUM(A1)", "\tx", "\rx"]) expect(neutralizeFormula(s)).toBe(`'${s}`);
    for (const s of ["", "a=1", " =1", "'=1", "https://x/?a=-1"]) expect(neutralizeFormula(s)).toBe(s);
  });
});
