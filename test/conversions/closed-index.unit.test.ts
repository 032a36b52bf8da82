// Which conversion indexes the journey job loads (server/conversions/closed-index.ts): the most recently
// asked first, at most MAX_DEMANDS_PER_ACCOUNT of one account, and none that would evict another once the
// held indexes fill MAX_INDEXED_ROWS (the next round would load the evicted one again, and so on).
import { expect, test } from "bun:test";
import {
  askedIndexes,
  type IndexDemand,
  indexFor,
  keepIndex,
  MAX_DEMANDS_PER_ACCOUNT,
  MAX_INDEXED_ROWS,
  wouldEvict,
} from "../../server/conversions/closed-index";
import type { Clickhouse } from "../../server/storage/clickhouse/client";

const demand = (accountId: string, linkId: string): IndexDemand => ({
  kind: "breakdown",
  scope: { accountId, linkId },
  dimension: "device",
});

test("one account's many links take at most its share of the round, the most recently asked first", () => {
  const ch = {} as Clickhouse;
  const now = Date.now();
  for (let i = 0; i < MAX_DEMANDS_PER_ACCOUNT + 10; i++) indexFor(ch, demand("a", `link-${i}`), now + i);
  indexFor(ch, demand("b", "only"), now + 100);
  const asked = askedIndexes(ch, now + 200);
  expect(asked[0]).toEqual(demand("b", "only"));
  const ofA = asked.filter((d) => d.scope.accountId === "a").map((d) => d.scope.linkId);
  expect(ofA).toHaveLength(MAX_DEMANDS_PER_ACCOUNT);
  expect(ofA[0]).toBe(`link-${MAX_DEMANDS_PER_ACCOUNT + 9}`);
  expect(ofA).not.toContain("link-0");
});

test("once the held indexes are full, a new one is not loaded; the held ones still are", () => {
  const ch = {} as Clickhouse;
  const held = demand("a", "held");
  const other = demand("a", "other");
  expect(wouldEvict(ch, other)).toBe(false);
  keepIndex(ch, held, { rows: MAX_INDEXED_ROWS });
  expect(wouldEvict(ch, held)).toBe(false);
  expect(wouldEvict(ch, other)).toBe(true);
  keepIndex(ch, held, { rows: MAX_INDEXED_ROWS - 1 });
  expect(wouldEvict(ch, other)).toBe(false);
});
