// Query validation of the analytics endpoints (400 naming the field) and their permission.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { get, P } from "./helpers";

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.createAccount({ tier: "scale" }));
}, 60_000);
afterAll(() => t.close());

const PATHS = ["summary", "timeseries", "geo", "devices", "referrers", "hourly"];

describe("analytics query validation", () => {
  test.each([
    ["days=0", "query.days"],
    ["days=366", "query.days"],
    ["days=abc", "query.days"],
    ["days=1.5", "query.days"],
    ["start_date=2024-13-01", "query.start_date"],
    ["start_date=2024-02-30", "query.start_date"],
    ["start_date=yesterday", "query.start_date"],
    ["end_date=2024-1-1", "query.end_date"],
    ["start_date=2024-03-10&end_date=2024-03-09", "query.end_date"],
    ["bot_filter=humans", "query.bot_filter"],
    ["domain_name=not%20a%20domain", "query.domain_name"],
  ])("%s → 400 naming %s", async (qs, field) => {
    for (const path of PATHS) {
      const res = await get(t, key, `/analytics/${path}?${qs}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
  });

  test("the edges are accepted: days 1 and 365, a one-day explicit range", async () => {
    expect((await get(t, key, "/analytics/timeseries?days=1")).body.data.analytics.length).toBe(1);
    expect((await get(t, key, "/analytics/timeseries?days=365")).body.data.analytics.length).toBe(365);
    const one = await get(t, key, "/analytics/timeseries?start_date=2024-03-10&end_date=2024-03-10");
    expect(one.status).toBe(200);
  });

  test("a future start_date is an empty range, with or without end_date", async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    for (const qs of [`start_date=${tomorrow}`, `start_date=${tomorrow}&end_date=${tomorrow}`]) {
      const res = await get(t, key, `/analytics/timeseries?${qs}`);
      expect({ qs, status: res.status, analytics: res.body.data.analytics }).toEqual({ qs, status: 200, analytics: [] });
    }
  });

  test("needs analytics:read", async () => {
    const { key: linksOnly } = await t.createAccount({ scopes: ["links:read"] });
    for (const path of PATHS) {
      const res = await get(t, linksOnly, `/analytics/${path}`);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("INSUFFICIENT_PERMISSIONS");
    }
    expect((await t.call(`${P}/analytics/summary`)).status).toBe(401);
    expect((await get(t, linksOnly, `/links/${crypto.randomUUID()}/stats`)).status).toBe(403);
  });
});
