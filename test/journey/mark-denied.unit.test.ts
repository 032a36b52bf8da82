// A ClickHouse user without SELECT on system.mutations: the stored retention and paths reads give way to
// the bundles (null) instead of failing the report; any other error still fails it.
import { expect, test } from "bun:test";
import { markDenied, unlessMarkDenied } from "../../server/journey/mark-denied";

const denied = new Error(
  "Code: 497. DB::Exception: svc: Not enough privileges. To execute this query, it's necessary to have the grant SELECT(database, table, mutation_id, is_done) ON system.mutations. (ACCESS_DENIED) (version 24.8.4.13 (official build))",
);

test("a refused read of system.mutations gives null; other errors are thrown", async () => {
  expect(markDenied(denied)).toBe(true);
  // As @clickhouse/client gives it: the code and type apart from the message.
  const overHttp = Object.assign(
    new Error("svc: Not enough privileges. To execute this query, it's necessary to have the grant SELECT ON system.mutations"),
    { code: "497", type: "ACCESS_DENIED" },
  );
  expect(markDenied(overHttp)).toBe(true);
  expect(await unlessMarkDenied(() => Promise.reject(denied))).toBeNull();
  expect(await unlessMarkDenied(() => Promise.resolve([1]))).toEqual([1]);
  const timeout = new Error("Code: 159. DB::Exception: Timeout exceeded: elapsed 5.0 seconds. (TIMEOUT_EXCEEDED)");
  await expect(unlessMarkDenied(() => Promise.reject(timeout))).rejects.toThrow("TIMEOUT_EXCEEDED");
  const otherGrant = new Error(
    "Code: 497. DB::Exception: svc: Not enough privileges. To execute this query, it's necessary to have the grant SELECT ON db.journey_event_bundles. (ACCESS_DENIED)",
  );
  expect(markDenied(otherGrant)).toBe(false);
});
