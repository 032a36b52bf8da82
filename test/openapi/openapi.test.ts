// The OpenAPI documents: complete (every public and admin route has operation() metadata), OpenAPI
// 3.1 with the API's headers and error forms, examples that match their schemas, served without a
// key (the admin one behind the admin bearer), and a checker that refuses undocumented answers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, ADMIN_TOKEN, type TestApp } from "../helpers/app";
import { checked, ContractChecker } from "../helpers/contract";
import { listen } from "../helpers/app";
import { describeApi } from "../../server/openapi/routes";

let t: TestApp;
let doc: any;
let admin: any;
let checker: ContractChecker;
let key: string;
const P = "/public-api/v1";
const ops = (d: any) =>
  Object.entries(d.paths).flatMap(([path, item]: [string, any]) =>
    Object.entries(item).map(([method, op]: [string, any]) => ({ path, method, op })),
  );

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.createAccount({ tier: "scale" }));
  doc = (await t.call(`${P}/docs/json`)).body;
  admin = (await t.admin("GET", "/openapi.json")).body;
  checker = new ContractChecker(doc);
});
afterAll(() => t.close());

describe("the documents", () => {
  test("every public and admin route is an operation with an id, a tag, a summary and its responses", () => {
    const built = describeApi(t.runtime.app.routes);
    expect([...built.public.problems, ...built.admin.problems]).toEqual([]);
    const routes = t.runtime.app.routes.filter(
      (r) => r.method !== "OPTIONS" && /^\/(public-api|admin)\/v1\//.test(r.path) && !(r.hooks.detail as any)?.hide,
    );
    const documented = [...ops(doc).map((o) => `${o.method} ${P}${o.path}`), ...ops(admin).map((o) => `${o.method} /admin/v1${o.path}`)];
    expect(documented.sort()).toEqual(routes.map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, "{$1}")}`).sort());
    const tags = [...doc.tags, ...admin.tags].map((x: any) => x.name);
    const all = [...ops(doc), ...ops(admin)];
    expect(all.length).toBeGreaterThanOrEqual(50);
    expect(new Set(all.map((o) => o.op.operationId)).size).toBe(all.length);
    for (const { op } of all) {
      expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary.length).toBeGreaterThan(3);
      expect(tags).toContain(op.tags[0]);
      const statuses = Object.keys(op.responses);
      expect(statuses.some((s) => s.startsWith("2"))).toBe(true);
      expect(statuses).toContain("500");
      // Every answer has a schema; only the QR code's image answers, the raw exports and the links export are not JSON.
      for (const s of statuses) expect(Object.values(op.responses[s].content).every((m: any) => m.schema)).toBe(true);
      const raw = statuses.filter((s) => !op.responses[s].content["application/json"]);
      expect(raw).toEqual(["getLinkQr", "exportClicks", "exportJourneyEvents", "exportLinks"].includes(op.operationId) ? ["200"] : []);
    }
  });

  test("OpenAPI 3.1 with the X-API-Key scheme, the envelope, both error forms and the headers", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: "/public-api/v1", description: "This server" }]);
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: "apiKey", in: "header", name: "X-API-Key" });
    expect(admin.components.securitySchemes.AdminToken).toMatchObject({ type: "http", scheme: "bearer" });
    const list = doc.paths["/links"].get;
    expect(list.responses["200"].content["application/json"].schema.properties.meta).toEqual({ $ref: "#/components/schemas/PageMeta" });
    expect(list.responses["200"].headers["X-RateLimit-Remaining"]).toEqual({ $ref: "#/components/headers/X-RateLimit-Remaining" });
    expect(doc.components.headers["X-RateLimit-Remaining"].required).toBe(true);
    expect(list.responses["403"].headers["X-RateLimit-Remaining"]).toEqual({ $ref: "#/components/headers/X-RateLimit-Remaining.optional" });
    expect(doc.components.headers["X-RateLimit-Remaining.optional"].required).toBeUndefined();
    expect(list.responses["429"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/RateLimitError" });
    expect(list.responses["429"].headers["Retry-After"]).toEqual({ $ref: "#/components/headers/Retry-After" });
    const ingest = doc.paths["/journey/events"].post;
    expect(ingest.requestBody.content["application/json"].schema.properties.events.maxItems).toBe(100);
    expect(ingest.parameters.map((p: any) => p.name)).toEqual(["X-Idempotency-Key"]);
    expect(Object.keys(ingest.responses).sort()).toEqual(["202", "400", "401", "403", "413", "429", "500", "503"]);
    expect(ingest.responses["202"].headers["X-Journey-Warning"]).toEqual({ $ref: "#/components/headers/X-Journey-Warning.optional" });
    expect(ingest.responses["202"].headers["X-RateLimit-Limit"]).toBeUndefined();
    expect(JSON.stringify(ingest.responses["429"])).toContain("JOURNEY_LIMIT_EXCEEDED");
    expect(JSON.stringify(ingest.responses["429"])).not.toContain("RateLimitError");
    const bulk = doc.paths["/links/bulk"].post;
    expect(Object.keys(bulk.responses)).toEqual(expect.arrayContaining(["201", "207", "408", "422"]));
    expect(doc.paths["/links/{id}/og-image"].put.requestBody.content["image/png"]).toEqual({});
    const param = (name: string) => doc.paths["/links"].get.parameters.find((p: any) => p.name === name).schema;
    expect(param("per_page").type).toBe("number");
    expect(param("sort_by")).toMatchObject({ type: "string", enum: expect.arrayContaining(["created_at", "title"]) });
  });

  test("every example is valid against its schema", () => {
    let examples = 0;
    for (const [d, c] of [
      [doc, checker],
      [admin, new ContractChecker(admin)],
    ] as const)
      for (const { op } of ops(d))
        for (const response of Object.values(op.responses) as any[])
          for (const media of Object.values(response.content ?? {}) as any[])
            if (media.example !== undefined) {
              examples++;
              expect(c.validate(media.schema, media.example)).toEqual([]);
            }
    expect(examples).toBeGreaterThanOrEqual(30);
  });

  test("the public document needs no key; the admin one needs the admin bearer", async () => {
    const res = await t.request(`${P}/docs/json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect((await t.request("/admin/v1/openapi.json")).status).toBe(401);
    expect((await t.request("/admin/v1/openapi.json", { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);
  });
});

describe("the contract check", () => {
  const ok = (extra: Record<string, string> = {}) =>
    new Headers({
      "content-type": "application/json",
      "x-request-id": "abc",
      "x-ratelimit-limit": "250000",
      "x-ratelimit-remaining": "5",
      "x-ratelimit-reset": "1800000000",
      ...extra,
    });
  const page = JSON.stringify({
    success: true,
    data: [],
    meta: { request_id: "r", timestamp: "2026-11-25T00:00:00.000Z", page: 1, per_page: 20, total: 0, total_pages: 0 },
  });

  test("accepts a real answer, and runs on every answer of request() and of fetch to our servers", async () => {
    const before = checked.count;
    const res = await t.request(`${P}/links`, { key });
    expect(checked.count).toBe(before + 1);
    const server = listen(t);
    try {
      expect((await fetch(`${server.url}${P}/links/not-a-uuid`, { headers: { "x-api-key": key } })).status).toBe(400);
      expect(checked.count).toBe(before + 2);
    } finally {
      await server.stop();
    }
    expect(res.status).toBe(200);
    expect(checker.check("GET", `${P}/links`, res.status, res.headers, await res.text())).toEqual([]);
    expect(checker.check("GET", `${P}/links`, 200, ok(), page)).toEqual([]);
  });

  test("refuses an undocumented status, shape, header or route", () => {
    expect(checker.check("GET", `${P}/links`, 418, ok(), page)[0]).toContain("status 418 is not documented for listLinks");
    expect(checker.check("GET", `${P}/links`, 200, ok(), JSON.stringify({ success: true, data: [] }))[0]).toContain(
      "does not match listLinks's 200 schema",
    );
    const link = JSON.stringify({ success: true, data: [{ id: "x" }], meta: JSON.parse(page).meta });
    expect(checker.check("GET", `${P}/links`, 200, ok(), link).join()).toContain("/data/0");
    const headers = ok();
    headers.delete("x-ratelimit-remaining");
    expect(checker.check("GET", `${P}/links`, 200, headers, page)).toEqual([
      `GET ${P}/links → 200: required header X-RateLimit-Remaining is missing`,
    ]);
    expect(checker.check("GET", `${P}/links`, 200, ok({ "x-ratelimit-limit": "lots" }), page)[0]).toContain("is not an integer");
    expect(checker.check("GET", `${P}/links`, 200, ok({ "content-type": "text/html" }), page)[0]).toContain('content type "text/html"');
    expect(checker.check("GET", `${P}/nothing-here`, 200, ok(), page)[0]).toContain("the document has no GET /nothing-here");
    expect(checker.check("GET", `${P}/nothing-here`, 404, ok(), "{}")).toEqual([]);
    const wrongError = JSON.stringify({
      success: false,
      error: { code: "GONE", message: "x" },
      meta: { request_id: "r", timestamp: "2026-11-25T00:00:00.000Z", status: 404 },
    });
    expect(checker.check("GET", `${P}/links/9f0c1a62-3a5b-4c7e-8d9f-0a1b2c3d4e5f`, 404, ok(), wrongError)[0]).toContain(
      "does not match getLink's 404 schema",
    );
  });
});
