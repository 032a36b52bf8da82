// Webhook endpoint API: CRUD, scopes, quotas, URL rules, ownership, secret storage, delivery list order.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";
import { emitEvent } from "../../server/webhooks/outbox";
import { decryptSecret } from "../../server/webhooks/secrets";
import { startReceiver, type Receiver } from "./receiver";

const INSECURE = { WEBHOOK_ALLOW_INSECURE: "true", WEBHOOK_RETRY_DELAYS_MS: "50,100" };
let t: TestApp;
let strict: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestApp({}, INSECURE);
  strict = await createTestApp(); // one at a time: the helper opens the shared chDB lazily
  receiver = startReceiver();
}, 60_000);
afterAll(async () => {
  receiver.stop();
  await Promise.all([t.close(), strict.close()]);
}, 60_000);

const hooks = "/public-api/v1/webhooks";

describe("webhook endpoints", () => {
  test("create answers 201 with the secret once; get, list, patch and delete never show it", async () => {
    const { key } = await t.createAccount({ tier: "pro" });
    const created = await t.call(hooks, {
      method: "POST",
      key,
      json: { url: receiver.url, events: ["link.created", "conversion"], description: "CRM" },
    });
    expect(created.status).toBe(201);
    const ep = created.body.data;
    expect(ep).toMatchObject({
      url: receiver.url,
      events: ["link.created", "conversion"],
      description: "CRM",
      is_active: true,
      consecutive_failures: 0,
    });
    expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(ep.secret.slice(6), "base64").length).toBe(32);
    expect(new Date(ep.created_at).toISOString()).toBe(ep.created_at);

    const got = await t.call(`${hooks}/${ep.id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual({
      id: ep.id,
      url: receiver.url,
      events: ["link.created", "conversion"],
      description: "CRM",
      is_active: true,
      consecutive_failures: 0,
      created_at: ep.created_at,
    });
    const listed = await t.call(hooks, { key });
    expect(listed.body.data).toEqual([got.body.data]);

    const patched = await t.call(`${hooks}/${ep.id}`, {
      method: "PATCH",
      key,
      json: { events: ["link.deleted"], description: null, is_active: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id: ep.id, events: ["link.deleted"], description: null, is_active: false });
    const unchanged = await t.call(`${hooks}/${ep.id}`, { method: "PATCH", key, json: {} });
    expect(unchanged.body.data).toEqual(patched.body.data);
    for (const body of [got.body, listed.body, patched.body]) expect(JSON.stringify(body)).not.toContain(ep.secret);

    const deleted = await t.call(`${hooks}/${ep.id}`, { method: "DELETE", key });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ message: "Webhook endpoint deleted" });
    expect((await t.call(`${hooks}/${ep.id}`, { key })).status).toBe(404);
    expect((await t.call(hooks, { key })).body.data).toEqual([]);
  });

  test("the secret is stored encrypted (AES-256-GCM under APP_SECRET), never in plain text", async () => {
    const { key } = await t.createAccount();
    const { body } = await t.call(hooks, { method: "POST", key, json: { url: receiver.url, events: ["conversion"] } });
    const rows = await t.runtime.deps.pg.query<Record<string, unknown>>(sql`select * from webhook_endpoints where id = ${body.data.id}`);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(body.data.secret);
    expect(dump).not.toContain(body.data.secret.slice(6));
    const stored = rows[0].secret_encrypted as string;
    expect(decryptSecret(t.config.appSecret, stored)).toBe(body.data.secret);
    expect(() => decryptSecret("another-app-secret-of-32-characters!!", stored)).toThrow();
  });

  test("scopes: webhooks:read lists, webhooks:write is needed to change", async () => {
    const { key } = await t.createAccount({ scopes: ["webhooks:read"] });
    expect((await t.call(hooks, { key })).status).toBe(200);
    const denied = await t.call(hooks, { method: "POST", key, json: { url: receiver.url, events: ["conversion"] } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: "INSUFFICIENT_PERMISSIONS", details: { required: "webhooks:write" } });
    const { key: writeOnly } = await t.createAccount({ scopes: ["webhooks:write"] });
    expect((await t.call(hooks, { key: writeOnly })).body.error.code).toBe("INSUFFICIENT_PERMISSIONS");
    expect((await t.call(hooks)).status).toBe(401);
  });

  test("per-tier endpoint quota answers 403 QUOTA_EXCEEDED (free 1, basic 2)", async () => {
    for (const [tier, max] of [
      ["free", 1],
      ["basic", 2],
    ] as const) {
      const { key } = await t.createAccount({ tier });
      for (let i = 0; i < max; i++) {
        expect((await t.call(hooks, { method: "POST", key, json: { url: receiver.url, events: ["conversion"] } })).status).toBe(201);
      }
      const over = await t.call(hooks, { method: "POST", key, json: { url: receiver.url, events: ["conversion"] } });
      expect(over.status).toBe(403);
      expect(over.body.error).toMatchObject({ code: "QUOTA_EXCEEDED", details: { limit: max, tier } });
      expect((await t.call(hooks, { key })).body.data.length).toBe(max);
    }
  });

  test("events must be known event types; bad input changes nothing", async () => {
    const { key } = await t.createAccount();
    for (const events of [["link.exploded"], [], ["test"], ["conversion", "conversion"]]) {
      const bad = await t.call(hooks, { method: "POST", key, json: { url: receiver.url, events } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe("VALIDATION_ERROR");
      expect(bad.body.error.details.fields[0].field).toStartWith("body.events");
    }
    const missing = await t.call(hooks, { method: "POST", key, json: { events: ["conversion"] } });
    expect(missing.body.error.details.fields[0].field).toBe("body.url");
    const { body } = await t.call(hooks, { method: "POST", key, json: { url: receiver.url, events: ["conversion"] } });
    const badPatch = await t.call(`${hooks}/${body.data.id}`, { method: "PATCH", key, json: { events: ["nope"], description: "x" } });
    expect(badPatch.status).toBe(400);
    expect((await t.call(`${hooks}/${body.data.id}`, { key })).body.data).toMatchObject({ events: ["conversion"], description: null });
    expect((await t.call(hooks, { key })).body.data.length).toBe(1);
  });

  test("URL rules without WEBHOOK_ALLOW_INSECURE: https only, no private or loopback targets", async () => {
    const { key } = await strict.createAccount();
    const cases = [
      ["http://hooks.example.com/x", "must be an https:// URL (for local development, start the server with WEBHOOK_ALLOW_INSECURE=true"],
      ["ftp://hooks.example.com/x", "must be an https:// URL"],
      ["not a url", "is not a valid URL"],
      ["https://user:pw@hooks.example.com/x", "must not contain credentials"],
      ["https://127.0.0.1/x", "private"],
      [
        "https://localhost/x",
        "private, loopback or reserved address (for local development, start the server with WEBHOOK_ALLOW_INSECURE=true",
      ],
      ["https://10.1.2.3/x", "private"],
      ["https://192.168.0.10/x", "private"],
      ["https://169.254.169.254/latest/meta-data", "private"],
      ["https://[::1]/x", "private"],
      ["https://[::ffff:127.0.0.1]/x", "private"],
    ];
    for (const [url, reason] of cases) {
      const res = await strict.call(hooks, { method: "POST", key, json: { url, events: ["conversion"] } });
      expect(res.status, url).toBe(400);
      expect(res.body.error.details.fields[0]).toMatchObject({ field: "body.url" });
      expect(res.body.error.message).toContain(reason);
    }
    expect((await strict.call(hooks, { key })).body.data).toEqual([]);
  });

  test("with WEBHOOK_ALLOW_INSECURE, http and loopback targets are accepted; a PATCH re-checks the URL", async () => {
    const { key } = await t.createAccount();
    const res = await t.call(hooks, { method: "POST", key, json: { url: "http://127.0.0.1:9/x", events: ["conversion"] } });
    expect(res.status).toBe(201);
    const { key: strictKey, accountId } = await strict.createAccount();
    const [row] = await strict.runtime.deps.pg.query<{ id: string }>(sql`
      insert into webhook_endpoints (account_id, url, events, secret_encrypted)
      values (${accountId}, ${"https://127.0.0.1:9/saved-before"}, ${"{conversion}"}::text[], ${"v1:unused"}) returning id`);
    for (const url of ["http://hooks.example.com/x", "https://[::1]/x", "https://10.0.0.1/x"]) {
      const patched = await strict.call(`${hooks}/${row.id}`, { method: "PATCH", key: strictKey, json: { url, description: "changed" } });
      expect(patched.status, url).toBe(400);
      expect(patched.body.error.details.fields[0].field).toBe("body.url");
    }
    expect((await strict.call(`${hooks}/${row.id}`, { key: strictKey })).body.data).toMatchObject({
      url: "https://127.0.0.1:9/saved-before",
      description: null,
    });
  });

  test("another account's webhook id answers 404 everywhere", async () => {
    const owner = await t.createAccount();
    const other = await t.createAccount();
    const { body } = await t.call(hooks, { method: "POST", key: owner.key, json: { url: receiver.url, events: ["conversion"] } });
    const id = body.data.id;
    for (const [method, path, json] of [
      ["GET", `${hooks}/${id}`],
      ["PATCH", `${hooks}/${id}`, { is_active: false }],
      ["DELETE", `${hooks}/${id}`],
      ["POST", `${hooks}/${id}/test`],
      ["GET", `${hooks}/${id}/deliveries`],
    ] as const) {
      const res = await t.call(path, { method, key: other.key, json });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    expect((await t.call(hooks, { key: other.key })).body.data).toEqual([]);
    expect((await t.call(`${hooks}/${id}`, { key: owner.key })).body.data.is_active).toBe(true);
    expect((await t.call(`${hooks}/not-a-uuid`, { key: owner.key })).status).toBe(400);
  });

  test("deliveries list: the 50 newest, newest first", async () => {
    const { key, accountId } = await t.createAccount();
    const { body } = await t.call(hooks, { method: "POST", key, json: { url: receiver.url, events: ["conversion"] } });
    // Spaced by 2 ms: PGlite's clock has millisecond resolution, and deliveries created in the same
    // instant have no order among themselves.
    for (let n = 0; n < 55; n++) {
      await emitEvent(t.runtime.deps.pg.db, accountId, "conversion", { n });
      await Bun.sleep(2);
    }
    const list = await t.call(`${hooks}/${body.data.id}/deliveries`, { key });
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBe(50);
    expect(list.body.data.map((d: any) => d.payload.data.n)).toEqual(Array.from({ length: 50 }, (_, i) => 54 - i));
    expect(list.body.meta.page).toBeUndefined();
    expect(Object.keys(list.body.data[0]).sort()).toEqual([
      "attempt_number",
      "created_at",
      "delivered_at",
      "endpoint_id",
      "error_message",
      "event_type",
      "http_status",
      "id",
      "max_attempts",
      "next_retry_at",
      "payload",
      "response_body",
      "status",
    ]);
  });
});
