import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { SCOPES } from "../../server/scopes";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Operation {
  method: string;
  path: string;
  scope: string;
}

async function publicOperations(): Promise<Operation[]> {
  const doc = (await t.call("/public-api/v1/docs/json")).body;
  const prefix = doc.servers[0].url;
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      if (op["x-required-scope"]) ops.push({ method: method.toUpperCase(), path: prefix + path, scope: op["x-required-scope"] });
    }
  }
  return ops;
}

const concrete = (path: string) => path.replace(/\{[^}]+\}/g, crypto.randomUUID()).replace(/:[a-z_]+/g, crypto.randomUUID());

test("the OpenAPI document lists the public routes with their schemas", async () => {
  const ops = await publicOperations();
  expect(ops.length).toBeGreaterThanOrEqual(42);
  const doc = (await t.call("/public-api/v1/docs/json")).body;
  expect(doc.servers[0].url).toBe("/public-api/v1");
  expect(doc.paths["/links"].post.requestBody).toBeTruthy();
  expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: "apiKey", in: "header", name: "X-API-Key" });
});

test("every public route answers 401 without a key and 403 INSUFFICIENT_PERMISSIONS without its scope", async () => {
  const ops = await publicOperations();
  expect(ops.length).toBeGreaterThanOrEqual(42);
  const keysWithout = new Map<string, string>();
  for (const scope of new Set(ops.map((o) => o.scope))) {
    keysWithout.set(scope, (await t.createAccount({ scopes: SCOPES.filter((s) => s !== scope) })).key);
  }
  for (const op of ops) {
    const path = concrete(op.path);
    const body = ["POST", "PATCH", "PUT"].includes(op.method) ? JSON.stringify({}) : undefined;
    const headers = body ? { "content-type": "application/json" } : undefined;
    const anonymous = await t.call(path, { method: op.method, body, headers });
    expect([op.method, op.path, anonymous.status, anonymous.body.error?.code]).toEqual([op.method, op.path, 401, "UNAUTHORIZED"]);
    const denied = await t.call(path, { method: op.method, body, headers, key: keysWithout.get(op.scope) });
    expect(
      `${op.method} ${op.path} ${denied.status} ${denied.body.error?.details?.required} ${JSON.stringify(denied.body).slice(0, 200)}`,
    ).toStartWith(`${op.method} ${op.path} 403 ${op.scope} `);
  }
});

test("malformed, unknown and revoked keys are 401; revocation takes effect on the very next request", async () => {
  const malformed = await t.call("/public-api/v1/links", { key: "svc_short" });
  expect([malformed.status, malformed.body.error.code]).toEqual([401, "UNAUTHORIZED"]);
  const unknown = await t.call("/public-api/v1/links", { key: "svc_" + "A".repeat(28) });
  expect(unknown.status).toBe(401);
  const { accountId, key, keyId } = await t.createAccount();
  expect((await t.call("/public-api/v1/links", { key })).status).toBe(200);
  expect((await t.admin("DELETE", `/accounts/${accountId}/keys/${keyId}`)).body.data.revoked_at).toBeTruthy();
  expect((await t.call("/public-api/v1/links", { key })).status).toBe(401);
});
