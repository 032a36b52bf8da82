// Link events through the links API (link.created / updated / deleted, bulk_import.completed) and
// link.expired from the expiry sweeper, delivered to a real HTTPS receiver.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";
import { sweepExpiredLinks } from "../../server/links/expiry-sweeper";
import { domains } from "../../server/storage/postgres/schema";
import { startReceiver, verifySvcSignature, verifyStandardSignature, type Receiver } from "./receiver";

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  // The expiry sweeper stays off: the test runs its rounds itself.
  t = await createTestApp({}, { WEBHOOK_ALLOW_INSECURE: "true", WEBHOOK_RETRY_DELAYS_MS: "50,100" }, { jobs: ["webhooks"] });
  receiver = startReceiver();
}, 60_000);
afterAll(async () => {
  receiver.stop();
  await t.close();
}, 60_000);

const LINK_EVENTS = ["link.created", "link.updated", "link.deleted", "link.expired", "bulk_import.completed"];
// Title and description given, so no destination page is fetched; the destination is a closed loopback port.
const linkBody = (n: number) => ({ url: `http://127.0.0.1:9/landing/${n}`, title: `Landing ${n}`, description: "A page" });

async function subscribe() {
  const account = await t.createAccount();
  const { body } = await t.call("/public-api/v1/webhooks", {
    method: "POST",
    key: account.key,
    json: { url: receiver.url, events: LINK_EVENTS },
  });
  return { ...account, secret: body.data.secret as string };
}

describe("link events", () => {
  test("link.created, link.updated and link.deleted carry the Link object as the links API returns it", async () => {
    const { key, secret } = await subscribe();
    const created = await t.call("/public-api/v1/links", { method: "POST", key, json: linkBody(1) });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const updated = await t.call(`/public-api/v1/links/${id}`, { method: "PATCH", key, json: { title: "Renamed", tags: ["spring"] } });
    expect(updated.status).toBe(200);
    const deleted = await t.call(`/public-api/v1/links/${id}`, { method: "DELETE", key });
    expect(deleted.status).toBe(200);
    const mine = () => receiver.received.filter((r) => r.json?.data?.id === id);
    await receiver.waitFor(() => mine().length >= 3);
    const byEvent = Object.fromEntries(mine().map((r) => [r.json.event, r]));
    expect(byEvent["link.created"].json.data).toEqual(created.body.data);
    expect(byEvent["link.updated"].json.data).toEqual(updated.body.data);
    expect(byEvent["link.updated"].json.data).toMatchObject({ title: "Renamed", tags: ["spring"] });
    expect(byEvent["link.deleted"].json.data).toMatchObject({
      id,
      short_code: created.body.data.short_code,
      original_url: created.body.data.original_url,
    });
    for (const r of mine()) expect(verifySvcSignature(secret, r) && verifyStandardSignature(secret, r)).toBe(true);
  });

  test("a bulk import sends link.created for each link it made, then bulk_import.completed with the counts", async () => {
    const { key } = await subscribe();
    const bulk = await t.call("/public-api/v1/links/bulk", { method: "POST", key, json: [linkBody(2), linkBody(3), { url: "not a url" }] });
    expect(bulk.status).toBe(207);
    const ids = bulk.body.data.created.map((c: any) => c.link.id);
    const isMine = (x: any) => x.json?.event === "bulk_import.completed" && x.json.data.link_ids?.[0] === ids[0];
    const createdOf = (id: string) => receiver.received.find((x) => x.json?.event === "link.created" && x.json.data.id === id);
    await receiver.waitFor((all) => all.some(isMine) && ids.every(createdOf));
    const r = receiver.received.find(isMine)!;
    expect(r.json.data).toEqual({ total_requested: 3, success_count: 2, failure_count: 1, timed_out: false, link_ids: ids });
    for (const id of ids) expect(createdOf(id)!.json.data).toEqual((await t.call(`/public-api/v1/links/${id}`, { key })).body.data);
  });

  test("an import (POST /imports) ends with one bulk_import.completed carrying its id and counts", async () => {
    const { key } = await subscribe();
    const csv = "url,slug\nhttp://127.0.0.1:9/imp/1,\nhttp://127.0.0.1:9/imp/2,\nnot a url,\n";
    const posted = await t.call("/public-api/v1/imports", { method: "POST", key, body: csv, headers: { "content-type": "text/csv" } });
    expect(posted.status).toBe(202);
    await t.runtime.jobs.imports.runOnce();
    const isMine = (x: any) => x.json?.event === "bulk_import.completed" && x.json.data.import_id === posted.body.data.id;
    await receiver.waitFor((all) => all.some(isMine));
    expect(receiver.received.filter(isMine).map((r) => r.json.data)).toEqual([
      {
        import_id: posted.body.data.id,
        source: "generic",
        total: 3,
        created: 2,
        renamed: 0,
        skipped: 0,
        failed: 1,
        clicks: 0,
        total_requested: 3,
        success_count: 2,
        failure_count: 1,
        timed_out: false,
      },
    ]);
  });

  test("a bulk import by an account without a link.created subscription queues no delivery", async () => {
    const account = await t.createAccount({ tier: "scale" });
    await t.call("/public-api/v1/webhooks", { method: "POST", key: account.key, json: { url: receiver.url, events: ["link.deleted"] } });
    expect((await t.call("/public-api/v1/links/bulk", { method: "POST", key: account.key, json: [linkBody(6), linkBody(7)] })).status).toBe(
      201,
    );
    const rows = await t.runtime.deps.pg.query<{ n: number }>(
      sql`select count(*)::int as n from webhook_deliveries where account_id = ${account.accountId}`,
    );
    expect(rows[0].n).toBe(0);
  });

  test("link.expired of a link on a custom domain carries the short URL on that domain", async () => {
    const { key, accountId } = await subscribe();
    const host = `go-${crypto.randomUUID().slice(0, 8)}.example`;
    const [domain] = await t.runtime.deps.pg.db
      .insert(domains)
      .values({ accountId, name: host, verificationToken: "x", verifiedAt: new Date() })
      .returning();
    const link = (await t.call("/public-api/v1/links", { method: "POST", key, json: { ...linkBody(6), domain_id: domain.id } })).body.data;
    expect(link.short_url).toBe(`https://${host}/${link.short_code}`);
    await t.runtime.deps.pg.query(sql`update links set expires_at = now() - interval '1 second' where id = ${link.id}`);
    expect(await sweepExpiredLinks(t.runtime.deps.pg, t.config.baseUrl)).toBe(1);
    const isExpiry = (x: any) => x.json?.event === "link.expired" && x.json.data.id === link.id;
    await receiver.waitFor((all) => all.some(isExpiry));
    expect(receiver.received.find(isExpiry)!.json.data.short_url).toBe(link.short_url);
  });

  test("link.expired: the sweeper marks each expired link once, in the transaction that emits the event", async () => {
    const { key, accountId } = await subscribe();
    const soon = new Date(Date.now() + 1500).toISOString();
    const link = (await t.call("/public-api/v1/links", { method: "POST", key, json: { ...linkBody(4), expires_at: soon } })).body.data;
    const gone = (await t.call("/public-api/v1/links", { method: "POST", key, json: { ...linkBody(5), expires_at: soon } })).body.data;
    await t.call(`/public-api/v1/links/${gone.id}`, { method: "DELETE", key });
    expect(await sweepExpiredLinks(t.runtime.deps.pg, t.config.baseUrl)).toBe(0);
    await Bun.sleep(1600);
    expect(await sweepExpiredLinks(t.runtime.deps.pg, t.config.baseUrl)).toBe(1);
    expect(await sweepExpiredLinks(t.runtime.deps.pg, t.config.baseUrl)).toBe(0);
    const isExpiry = (x: any) => x.json?.event === "link.expired" && x.json.data.id === link.id;
    await receiver.waitFor((all) => all.some(isExpiry));
    const r = receiver.received.find(isExpiry)!;
    expect(r.json.data).toEqual({
      id: link.id,
      short_code: link.short_code,
      short_url: link.short_url,
      original_url: link.original_url,
      expires_at: new Date(link.expires_at ?? soon).toISOString(),
      reason: "expires_at",
      expired_url: null,
    });
    const [row] = await t.runtime.deps.pg.query<{ expired_notified_at: unknown }>(
      sql`select expired_notified_at from links where id = ${link.id}`,
    );
    expect(row.expired_notified_at).not.toBeNull();
    expect(receiver.received.some((x) => x.json?.event === "link.expired" && x.json.data.id === gone.id)).toBe(false);
    const rows = await t.runtime.deps.pg.query<{ n: number }>(
      sql`select count(*)::int as n from webhook_deliveries where account_id = ${accountId} and event_type = 'link.expired'`,
    );
    expect(rows[0].n).toBe(1);
  });

  test("conversion carries the journey event (with its id and timestamp)", async () => {
    const { key } = await subscribe();
    await t.call("/public-api/v1/webhooks", { method: "POST", key, json: { url: receiver.url, events: ["conversion"] } });
    const link = (await t.call("/public-api/v1/links", { method: "POST", key, json: linkBody(6) })).body.data;
    const event = {
      link_id: link.id,
      visitor_id: "v-42",
      session_id: "s-1",
      event_type: "conversion",
      event_name: "purchase",
      conversion_name: "checkout",
      page_url: "https://shop.example/thanks",
      revenue_cents: 4999,
      currency: "EUR",
      timestamp: new Date().toISOString(),
    };
    const res = await t.call("/public-api/v1/journey/events", {
      method: "POST",
      key,
      json: { events: [event, { ...event, event_type: "page_view" }] },
    });
    expect(res.status).toBe(202);
    const isMine = (x: any) => x.json?.event === "conversion" && x.json.data.link_id === link.id;
    await receiver.waitFor((all) => all.some(isMine));
    await t.runtime.jobs.webhooks.runOnce(); // every delivery due is attempted and settled
    const mine = receiver.received.filter(isMine);
    expect(mine.length).toBe(1);
    expect(mine[0].json.data).toMatchObject(event);
    expect(mine[0].json.data.id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
