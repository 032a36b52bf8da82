// The in-memory paths index's median of a group after some visitors' step times are taken out and others
// put in (server/journey/path-index.ts medianChanged) must be what sorting the changed list gives, as
// quantileExact(0.5) does: the element at half the count (the upper middle of an even count).
import { expect, test } from "bun:test";
import { medianChanged } from "../../server/journey/path-index";

/** A seeded generator (mulberry32): the same cases every run. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const byCopy = (base: number[], out: number[], added: number[]) => {
  const kept = [...base];
  for (const x of out) kept.splice(kept.indexOf(x), 1);
  const all = kept.concat(added).sort((a, b) => a - b);
  return all.length ? all[Math.floor(all.length / 2)] : 0;
};

test("the changed median equals the sorted copy's, with repeats, removals of every value and empty groups", () => {
  const rnd = random(7);
  for (let round = 0; round < 2000; round++) {
    const base = Array.from({ length: Math.floor(rnd() * 40) }, () => Math.floor(rnd() * 12)).sort((a, b) => a - b);
    const pool = [...base];
    const out: number[] = [];
    for (let i = Math.floor(rnd() * (pool.length + 1)); i > 0; i--) out.push(...pool.splice(Math.floor(rnd() * pool.length), 1));
    const added = Array.from({ length: Math.floor(rnd() * 6) }, () => Math.floor(rnd() * 14) - 1);
    expect(medianChanged(Float64Array.from(base), out, added)).toBe(byCopy(base, out, added));
  }
});
