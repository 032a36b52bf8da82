// The two public API additions the console needs: the trash (GET /links/deleted) and one session's
// events (GET /journey/links/{id}/events?session_id=).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

test("GET /links/deleted lists restorable deleted links, newest deletion first, and not another account's", async () => {
  const { key } = await t.createAccount();
  const other = await t.createAccount();
  const make = async (url: string) => (await t.call("/public-api/v1/links", { method: "POST", key, json: { url, title: url } })).body.data;
  const [a, b, c] = [await make("https://example.com/a"), await make("https://example.com/b"), await make("https://example.com/c")];
  for (const l of [a, b]) expect((await t.call(`/public-api/v1/links/${l.id}`, { method: "DELETE", key })).status).toBe(200);
  // One deleted eight days ago: past the window, so not restorable and not listed.
  await t.call(`/public-api/v1/links/${c.id}`, { method: "DELETE", key });
  await t.runtime.deps.pg.query(sql`update links set deleted_at = now() - interval '8 days' where id = ${c.id}`);

  const res = await t.call("/public-api/v1/links/deleted?per_page=10", { key });
  expect(res.status).toBe(200);
  expect(res.body.data.map((l: any) => l.id)).toEqual([b.id, a.id]);
  expect(res.body.meta).toMatchObject({ page: 1, per_page: 10, total: 2 });
  const item = res.body.data[0];
  expect(new Date(item.restorable_until).getTime() - new Date(item.deleted_at).getTime()).toBe(7 * 86_400_000);
  expect((await t.call("/public-api/v1/links/deleted", { key: other.key })).body.data).toEqual([]);
  expect((await t.call("/public-api/v1/links/deleted?per_page=0", { key })).body.error.details.fields[0].field).toBe("query.per_page");
  // A number too large for a double (Infinity once read) is named too, not "property".
  expect((await t.call("/public-api/v1/links/deleted?page=1e309", { key })).body.error.details.fields[0].field).toBe("query.page");

  expect((await t.call(`/public-api/v1/links/${b.id}/restore`, { method: "POST", key })).status).toBe(200);
  expect((await t.call("/public-api/v1/links/deleted", { key })).body.data.map((l: any) => l.id)).toEqual([a.id]);
  const readOnly = await t.createAccount({ scopes: ["analytics:read"] });
  expect((await t.call("/public-api/v1/links/deleted", { key: readOnly.key })).status).toBe(403);
});

test("GET /journey/links/{id}/events?session_id= returns that session's events only", async () => {
  const { key } = await t.createAccount();
  const link = (await t.call("/public-api/v1/links", { method: "POST", key, json: { url: "https://example.com/j" } })).body.data;
  const at = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
  const ev = (session: string, page: string, m: number) => ({
    link_id: link.id,
    visitor_id: "v",
    session_id: session,
    event_type: "page_view",
    page_url: `https://example.com/${page}`,
    timestamp: at(m),
  });
  const events = [ev("s1", "one", 30), ev("s1", "two", 20), ev("s2", "other", 10), ev("s1", "three", 5)];
  expect((await t.call("/public-api/v1/journey/events", { method: "POST", key, json: { events } })).status).toBe(202);
  await t.flush();
  const res = await t.call(`/public-api/v1/journey/links/${link.id}/events?session_id=s1`, { key });
  expect(res.status).toBe(200);
  expect(res.body.data.map((e: any) => e.page_url)).toEqual(["three", "two", "one"].map((p) => `https://example.com/${p}`));
  expect(res.body.meta.total).toBe(3);
  expect((await t.call(`/public-api/v1/journey/links/${link.id}/events?session_id=`, { key })).status).toBe(400);
});
