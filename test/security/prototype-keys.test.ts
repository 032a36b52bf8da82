// No field of a request may come from a prototype: a `__proto__` (or `constructor`, `prototype`) key in
// a body is an ordinary key, refused with a 400 naming it, on every route that takes a body. The routes
// come from the app itself and its OpenAPI documents, so a new route is covered without editing this file.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ADMIN_TOKEN, createTestApp, type TestApp } from "../helpers/app";

let app: TestApp;
let key: string;
const P = "/public-api/v1";

beforeAll(async () => {
  app = await createTestApp();
  key = (await app.createAccount()).key;
});
afterAll(async () => {
  await app?.close();
});

/** The credentials a route's family takes, so that a refusal is not an authentication failure. */
function credentials(path: string): Record<string, string> {
  if (path.startsWith("/admin/")) return { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (path.startsWith(P)) return { "x-api-key": key };
  return {};
}

/** `METHOD /path` of every route that takes a body: a body schema in the app, or a request body in a document. */
async function bodyRoutes(): Promise<string[]> {
  const found = new Set<string>();
  for (const r of app.runtime.app.routes as { method: string; path: string; hooks?: { body?: unknown } }[]) {
    if (r.hooks?.body) found.add(`${r.method} ${r.path}`);
  }
  const documents = [
    await app.call(`${P}/docs/json`),
    await app.call("/admin/v1/openapi.json", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
  ];
  for (const { body: doc } of documents) {
    const base: string = doc.servers[0].url;
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        if (!op.requestBody?.content?.["application/json"]) continue;
        found.add(`${method.toUpperCase()} ${base}${path.replace(/\{(\w+)\}/g, ":$1")}`);
      }
    }
  }
  return [...found].sort();
}

const concrete = (path: string) => path.replace(/:(\w+)/g, (_, name) => (name === "code" ? "abcdefg" : crypto.randomUUID()));

test("every route that takes a body refuses a __proto__ key, naming it", async () => {
  const routes = await bodyRoutes();
  // The enumeration itself must be real: the routes of the known defect and of each family are in it.
  expect(routes).toContain(`POST ${P}/links`);
  expect(routes).toContain(`POST ${P}/journey/events`);
  expect(routes).toContain("POST /admin/v1/accounts");
  expect(routes).toContain("POST /console/api/auth/sign-in");
  expect(routes.length).toBeGreaterThan(25);
  const answers: Record<string, unknown> = {};
  for (const route of routes) {
    const [method, path] = route.split(" ");
    const res = await app.runtime.app.handle(
      new Request(`http://127.0.0.1:3000${concrete(path)}`, {
        method,
        headers: { ...credentials(path), "content-type": "application/json" },
        body: '{"name":"n","url":"https://example.com/x","__proto__":{"is_password_protected":true,"password":"x","role":"owner"}}',
      }),
    );
    const body = (await res.json()) as any;
    answers[route] = `${res.status} ${body.error?.details?.fields?.[0]?.field}`;
  }
  expect(answers).toEqual(Object.fromEntries(routes.map((r) => [r, "400 body.__proto__"])));
});

test("POST /links with protection in __proto__ is refused and creates nothing", async () => {
  const { key: own } = await app.createAccount();
  const res = await app.call(`${P}/links`, {
    method: "POST",
    key: own,
    headers: { "content-type": "application/json" },
    body: '{"url":"https://example.com/a","__proto__":{"is_password_protected":true,"password":"x"}}',
  });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: "VALIDATION_ERROR", details: { fields: [{ field: "body.__proto__" }] } });
  expect((await app.call(`${P}/links`, { key: own })).body.data).toEqual([]);
});

test("constructor and prototype keys, nested, escaped or in free-form properties, are refused where they are", async () => {
  const { key: own } = await app.createAccount();
  const link = (await app.call(`${P}/links`, { method: "POST", key: own, json: { url: "https://example.com/b", title: "before" } })).body
    .data;
  const cases: [string, string, string, string][] = [
    ["PATCH", `${P}/links/${link.id}`, '{"title":"after","constructor":{"prototype":{"title":"x"}}}', "body.constructor"],
    ["PATCH", `${P}/links/${link.id}`, '{"title":"after","rules":[{"prototype":1}]}', "body.rules.0.prototype"],
    ["PATCH", `${P}/links/${link.id}`, '{"title":"after","\\u005f_proto__":{"is_active":false}}', "body.__proto__"],
    ["POST", `${P}/links/bulk`, '[{"url":"https://example.com/c"},{"url":"https://example.com/d","__proto__":{}}]', "body.1.__proto__"],
    [
      "POST",
      `${P}/journey/events`,
      `{"events":[{"link_id":"${link.id}","session_id":"s1","event_type":"page_view","properties":{"__proto__":"x"}}]}`,
      "body.events.0.properties.__proto__",
    ],
  ];
  for (const [method, path, body, field] of cases) {
    for (const type of path.endsWith("/journey/events") ? ["application/json", "text/plain"] : ["application/json"]) {
      const res = await app.call(path, { method, key: own, headers: { "content-type": type }, body });
      expect({ path, type, status: res.status, field: res.body.error?.details?.fields?.[0]?.field }).toEqual({
        path,
        type,
        status: 400,
        field,
      });
    }
  }
  // Nothing changed: the link keeps its title, no bulk link was made, no event was stored.
  const after = await app.call(`${P}/links`, { key: own });
  expect(after.body.data.map((l: any) => l.title)).toEqual(["before"]);
  await app.flush();
  const events = await app.call(`${P}/journey/links/${link.id}/events`, { key: own });
  expect(events.body.data).toEqual([]);
});
