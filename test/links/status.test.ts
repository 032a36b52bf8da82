// A link's `status` says what its redirect does: active, inactive (404), expired (410 or expired_url),
// limit_reached (410 or max_clicks_url); the list and the single link agree.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";

const P = "/public-api/v1";
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp({}, { TRUST_PROXY: "true" });
  ({ key } = await t.createAccount({ tier: "scale" }));
}, 60_000);
afterAll(() => t.close());

const create = async (json: Record<string, unknown>) => {
  const res = await t.call(`${P}/links`, { method: "POST", key, json: { url: "https://example.com/s", ...json } });
  expect(res.status).toBe(201);
  return res.body.data;
};
const statusOf = async (id: string) => (await t.call(`${P}/links/${id}`, { key })).body.data.status;
const listed = async (id: string) =>
  (await t.call(`${P}/links?per_page=100`, { key })).body.data.find((l: { id: string }) => l.id === id).status;
const redirect = async (code: string) =>
  (await t.request(`/${code}`, { redirect: "manual", headers: { "x-forwarded-for": "8.8.4.4", "user-agent": BROWSER } })).status;
const BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

describe("link status", () => {
  test("active, then inactive when switched off", async () => {
    const l = await create({});
    expect([await statusOf(l.id), await listed(l.id), await redirect(l.short_code)]).toEqual(["active", "active", 302]);
    await t.call(`${P}/links/${l.id}`, { method: "PATCH", key, json: { is_active: false } });
    expect([await statusOf(l.id), await listed(l.id), await redirect(l.short_code)]).toEqual(["inactive", "inactive", 404]);
  });

  test("expired once expires_at passes, when the redirect answers 410", async () => {
    const l = await create({ expires_at: new Date(Date.now() + 1500).toISOString() });
    expect(await statusOf(l.id)).toBe("active");
    // Wait for the positive signal: the redirect's 410.
    const deadline = Date.now() + 10_000;
    while ((await redirect(l.short_code)) !== 410 && Date.now() < deadline) await Bun.sleep(100);
    expect([await redirect(l.short_code), await statusOf(l.id), await listed(l.id)]).toEqual([410, "expired", "expired"]);
  });

  test("limit_reached once max_clicks people's clicks are counted", async () => {
    const l = await create({ max_clicks: 1 });
    expect(await redirect(l.short_code)).toBe(302);
    expect([await statusOf(l.id), await listed(l.id), await redirect(l.short_code)]).toEqual(["limit_reached", "limit_reached", 410]);
  });
});
