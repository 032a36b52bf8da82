// The pure parts of the summaries' index: the top values of two parts' counts (as one GROUP BY … ORDER
// BY n DESC, value would give them) and the merge of key-sorted rows (a day read again changes nothing).
import { expect, test } from "bun:test";
import { mergeKeyed } from "../../server/journey/summary-index";
import { topOfSum } from "../../server/journey/top-values";

function random(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x / 2_147_483_648;
  };
}

test("the top ten of closed + open counts equal the top ten of the summed counts, ties by the value's bytes", () => {
  const r = random(7);
  const values = ["a", "b", "B", "é", "e\u0301", "z", "\u{1F600}", "\uFFFD", ...Array.from({ length: 30 }, (_, i) => `/p/${i}`)];
  for (let round = 0; round < 200; round++) {
    const closed = new Map<string, number>();
    const open = new Map<string, number>();
    for (const v of values) {
      if (r() < 0.7) closed.set(v, 1 + Math.floor(r() * 5));
      if (r() < 0.2) open.set(v, 1 + Math.floor(r() * 3));
    }
    const all = new Map(closed);
    for (const [v, n] of open) all.set(v, (all.get(v) ?? 0) + n);
    const want = [...all]
      .sort((a, b) => b[1] - a[1] || Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])))
      .slice(0, 10)
      .map(([value, count]) => ({ value, count }));
    expect(topOfSum(closed, open)).toEqual(want);
  }
});

test("merging key-sorted rows takes each value's minimum or maximum, and a merge with rows already in changes nothing", () => {
  const rows = (keys: [number, number, number, number][]) => ({
    hi: Uint32Array.from(keys.map((k) => k[0])),
    lo: Uint32Array.from(keys.map((k) => k[1])),
    values: [Float64Array.from(keys.map((k) => k[2])), Float64Array.from(keys.map((k) => k[3]))],
  });
  const a = rows([
    [0, 5, 10, 20],
    [1, 0, 30, 40],
    [4_000_000_000, 1, 50, 60],
  ]);
  const b = rows([
    [0, 4, 1, 2],
    [1, 0, 25, 45],
    [4_000_000_000, 2, 7, 8],
  ]);
  const m = mergeKeyed(a, b, [Math.min, Math.max]);
  expect([...m.hi]).toEqual([0, 0, 1, 4_000_000_000, 4_000_000_000]);
  expect([...m.lo]).toEqual([4, 5, 0, 1, 2]);
  expect([...m.values[0]]).toEqual([1, 10, 25, 50, 7]);
  expect([...m.values[1]]).toEqual([2, 20, 45, 60, 8]);
  const again = mergeKeyed(m, b, [Math.min, Math.max]);
  expect([...again.values[0]]).toEqual([...m.values[0]]);
  expect([...again.values[1]]).toEqual([...m.values[1]]);
});
