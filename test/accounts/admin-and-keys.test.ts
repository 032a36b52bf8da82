import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, ADMIN_TOKEN, type TestApp } from "../helpers/app";
import { hashApiKey } from "../../server/accounts/api-keys";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("admin API", () => {
  test("requires the bearer token", async () => {
    const none = await t.call("/admin/v1/accounts", { method: "POST", json: { name: "x", tier: "free" } });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe("UNAUTHORIZED");
    const wrong = await t.call("/admin/v1/accounts", {
      method: "POST",
      json: { name: "x", tier: "free" },
      headers: { authorization: "Bearer nope" },
    });
    expect(wrong.status).toBe(401);
    const malformed = await t.call("/admin/v1/accounts", { method: "POST", body: "{bad", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(401);
  });

  test("is absent (404) when ADMIN_TOKEN is unset", async () => {
    const off = await createTestApp({ adminToken: undefined });
    try {
      const res = await off.call("/admin/v1/accounts", {
        method: "POST",
        json: { name: "x", tier: "free" },
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
      // Even a malformed body cannot tell that the route exists.
      const malformed = await off.call("/admin/v1/accounts", {
        method: "POST",
        body: "{bad",
        headers: { "content-type": "application/json" },
      });
      expect(malformed.status).toBe(404);
    } finally {
      await off.close();
    }
  });

  test("creates, reads and updates accounts; validation names the field", async () => {
    const created = await t.admin("POST", "/accounts", { name: "Acme", tier: "growth" });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: "Acme", tier: "growth", limit_overrides: {} });
    const id = created.body.data.id;
    expect((await t.admin("GET", `/accounts/${id}`)).body.data.name).toBe("Acme");

    const patched = await t.admin("PATCH", `/accounts/${id}`, { tier: "pro", limit_overrides: { journey_events_per_month: 10 } });
    expect(patched.body.data).toMatchObject({ tier: "pro", limit_overrides: { journey_events_per_month: 10 } });
    const cleared = await t.admin("PATCH", `/accounts/${id}`, { limit_overrides: { journey_events_per_month: null } });
    expect(cleared.body.data.limit_overrides).toEqual({});

    const bad = await t.admin("POST", "/accounts", { name: "x", tier: "platinum" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_ERROR");
    expect(bad.body.error.details.fields[0].field).toBe("body.tier");
    expect(bad.body.meta.status).toBe(400);

    const missing = await t.admin("GET", `/accounts/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
  });
});

describe("API keys", () => {
  test("have the svc_ format, are shown once and stored only as SHA-256", async () => {
    const { accountId, key, keyId } = await t.createAccount({ tier: "basic" });
    expect(key).toMatch(/^svc_[A-Za-z0-9_-]{28}$/);
    expect(key.length).toBe(32);
    const rows = await t.runtime.deps.pg.query<{ key_hash: string; prefix: string }>(
      sql`select key_hash, prefix from api_keys where id = ${keyId}`,
    );
    expect(rows[0].key_hash).toBe(hashApiKey(key));
    expect(rows[0].key_hash).toBe(new Bun.CryptoHasher("sha256").update(key).digest("hex"));
    const dump = JSON.stringify(await t.runtime.deps.pg.query(sql`select * from api_keys`));
    expect(dump).not.toContain(key);
    const listed = await t.admin("GET", `/accounts/${accountId}/keys`);
    expect(listed.body.data[0]).toMatchObject({ id: keyId, prefix: key.slice(0, 8) });
    expect(JSON.stringify(listed.body)).not.toContain(key);
  });

  test("per-tier key quota answers 403 QUOTA_EXCEEDED", async () => {
    const { accountId } = await t.createAccount({ tier: "free" });
    const second = await t.admin("POST", `/accounts/${accountId}/keys`, { name: "two", scopes: ["links:read"] });
    expect(second.status).toBe(403);
    expect(second.body.error.code).toBe("QUOTA_EXCEEDED");
  });

  test("rejects unknown scopes and bad allowlist entries, naming the field", async () => {
    const { accountId } = await t.createAccount({ tier: "scale" });
    const badScope = await t.admin("POST", `/accounts/${accountId}/keys`, { name: "x", scopes: ["links:everything"] });
    expect(badScope.status).toBe(400);
    expect(badScope.body.error.details.fields[0].field).toStartWith("body.scopes");
    const badIp = await t.admin("POST", `/accounts/${accountId}/keys`, {
      name: "x",
      scopes: ["links:read"],
      allowed_ips: ["10.0.0.0/8", "not-an-ip"],
    });
    expect(badIp.status).toBe(400);
    expect(badIp.body.error.details.fields[0].field).toBe("body.allowed_ips.1");
  });

  test("team members are added and removed", async () => {
    const { accountId } = await t.createAccount();
    const added = await t.admin("POST", `/accounts/${accountId}/members`, { email: "Ana@example.com", role: "admin" });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({ email: "ana@example.com", role: "admin" });
    const dup = await t.admin("POST", `/accounts/${accountId}/members`, { email: "ana@example.com", role: "admin" });
    expect(dup.status).toBe(409);
    const removed = await t.admin("DELETE", `/accounts/${accountId}/members/${added.body.data.id}`);
    expect(removed.status).toBe(200);
    expect((await t.admin("DELETE", `/accounts/${accountId}/members/${added.body.data.id}`)).status).toBe(404);
  });
});
