// The defects of the hardening issue, one by one, each as a user would see it: the answer is the
// envelope with the field named, nothing is stored, and the server keeps answering.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, listen, type TestApp } from "../helpers/app";
import { encodeRequest, sendRaw } from "./raw-http";
import { serveApp } from "../../server/http/serve";

const P = "/public-api/v1";
let t: TestApp;
let key: string;
let accountId: string;
let server: { url: string; stop(): Promise<void> };
let port: number;

beforeAll(async () => {
  t = await createTestApp();
  ({ key, accountId } = await t.createAccount({ tier: "scale" }));
  server = listen(t);
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server.stop();
  await t.close();
});

const expectValidationError = (res: { status: number; body: any }, field: string) => {
  expect(res.status).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code).toBe("VALIDATION_ERROR");
  expect(res.body.error.details.fields[0].field).toBe(field);
  expect(res.body.meta.status).toBe(400);
  expect(typeof res.body.meta.request_id).toBe("string");
};

const state = async () => ({
  links: (await t.call(`${P}/links?per_page=250`, { key })).body.data,
  campaigns: (await t.call(`${P}/campaigns`, { key })).body.data,
  webhooks: (await t.call(`${P}/webhooks`, { key })).body.data.map((w: any) => ({ ...w, consecutive_failures: 0 })),
  domains: (await t.call(`${P}/domains`, { key })).body.data,
  keys: (await t.admin("GET", `/accounts/${accountId}/keys`)).body.data.map((k: any) => ({ ...k, last_used_at: null })),
});

describe("1. a Host header that is not a host", () => {
  for (const host of ["a@b", "a b", "x:99999999", "[", ""]) {
    test(`Host: ${JSON.stringify(host)} on /healthz answers, and the server keeps answering`, async () => {
      const res = await sendRaw(port, encodeRequest({ method: "GET", target: "/healthz", headers: [["Host", host]] }));
      expect(res.noAnswer).toBe(false);
      expect(res.status).toBeLessThan(500);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(JSON.parse(res.body).meta.request_id).toBeString();
      // The after-response logger ran (it threw here before): the next request is served.
      const after = await fetch(`${server.url}/healthz`);
      expect(after.status).toBe(200);
    });
  }
});

describe("a short or invalid Host never changes which route runs (admin API without its token)", () => {
  // Elysia reads the path from index 11 of the URL on, which Bun builds from the Host header.
  const attempts: [string, string][] = [
    ["a", "/abc/admin/v1/accounts"],
    ["a.b", "/ab/admin/v1/accounts"],
    ["[", "/abcd/admin/v1/accounts"],
    ["", "/abcdefghij/admin/v1/accounts"],
    ["a@b", "/abcdefghij/admin/v1/accounts"],
  ];
  for (const [host, target] of attempts) {
    test(`Host: ${JSON.stringify(host)}, POST ${target}: no account is created`, async () => {
      const body = Buffer.from(JSON.stringify({ name: "intruder", tier: "scale" }));
      const res = await sendRaw(
        port,
        encodeRequest({
          method: "POST",
          target,
          headers: [
            ["Host", host],
            ["Content-Type", "application/json"],
          ],
          body,
        }),
      );
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body).error.code).toBe("NOT_FOUND");
    });
  }

  test("the same short host still reaches the route its path names", async () => {
    const res = await sendRaw(
      port,
      encodeRequest({
        method: "GET",
        target: `${P}/links`,
        headers: [
          ["Host", "a"],
          ["X-API-Key", key],
        ],
      }),
    );
    expect(res.status).toBe(200);
  });

  test("an admin route checks the token itself, whatever path led to it", async () => {
    // In-process, Elysia misreads this URL's path as /admin/v1/accounts; the path check sees /abc/….
    const res = await t.runtime.app.handle(
      new Request("http://a/abc/admin/v1/accounts", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "intruder", tier: "scale" }),
      }),
    );
    expect(res.status).toBe(401);
  });
});

describe("2. an error inside the error handler", () => {
  test("GET /links?tags= over 1,000 characters is a 400 naming query.tags, in JSON", async () => {
    const res = await fetch(`${server.url}${P}/links?tags=${"a".repeat(1200)}`, { headers: { "x-api-key": key } });
    expect(res.headers.get("content-type")).toContain("application/json");
    const body = (await res.json()) as any;
    expect(res.status).toBe(400);
    expect(body.error.code).toBe("VALIDATION_ERROR");
    expect(body.error.details.fields[0].field).toStartWith("query.tags");
  });

  test("an error that escapes the app is a 500 envelope from the last-resort handler, never Bun's error page", async () => {
    const failing = {
      ...t.runtime,
      app: {
        fetch() {
          throw new Error(`boom in ${import.meta.dir}`);
        },
      },
    } as unknown as typeof t.runtime;
    const bare = serveApp(failing, { port: 0, hostname: "127.0.0.1" });
    try {
      const res = await fetch(`http://127.0.0.1:${bare.port}${P}/links`);
      const text = await res.text();
      expect(res.status).toBe(500);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(text).not.toContain(import.meta.dir);
      expect(text).not.toContain("<html");
      const body = JSON.parse(text);
      expect(body).toMatchObject({ success: false, error: { code: "INTERNAL_ERROR" }, meta: { status: 500 } });
      expect(res.headers.get("x-request-id")).toBe(body.meta.request_id);
    } finally {
      bare.stop(true);
    }
  });
});

describe("3. NUL and unpaired surrogates in Postgres text", () => {
  const NUL = "a\u0000b";
  const LONE = "a\ud800b";
  let linkId: string;
  let campaignId: string;
  let webhookId: string;
  beforeAll(async () => {
    linkId = (await t.call(`${P}/links`, { method: "POST", key, json: { url: "https://example.com/n", title: "t", description: "d" } }))
      .body.data.id;
    campaignId = (await t.call(`${P}/campaigns`, { method: "POST", key, json: { name: "c" } })).body.data.id;
    webhookId = (await t.call(`${P}/webhooks`, { method: "POST", key, json: { url: "https://93.184.215.14/h", events: ["link.created"] } }))
      .body.data.id;
  });

  const cases = (bad: string): [string, string, string, unknown, string][] => [
    ["POST", "/links", "title", { url: "https://example.com/x", title: bad }, "body.title"],
    ["POST", "/links", "description", { url: "https://example.com/x", description: bad, title: "t" }, "body.description"],
    ["POST", "/links", "a tag", { url: "https://example.com/x", title: "t", description: "d", tags: ["ok", bad] }, "body.tags.1"],
    ["POST", "/links", "utm_source", { url: "https://example.com/x", title: "t", description: "d", utm_source: bad }, "body.utm_source"],
    ["POST", "/links/bulk", "a bulk item's title", [{ url: "https://example.com/x", title: bad, description: "d" }], "body.0.title"],
    ["PATCH", "/links/:link", "title", { title: bad }, "body.title"],
    ["POST", "/campaigns", "name", { name: bad }, "body.name"],
    ["PATCH", "/campaigns/:campaign", "description", { description: bad }, "body.description"],
    [
      "POST",
      "/webhooks",
      "description",
      { url: "https://93.184.215.14/x", events: ["link.created"], description: bad },
      "body.description",
    ],
    ["PATCH", "/webhooks/:webhook", "description", { description: bad }, "body.description"],
    ["POST", "/domains", "name", { name: `x${bad}.example.com` }, "body.name"],
  ];
  const path = (p: string) => p.replace(":link", linkId).replace(":campaign", campaignId).replace(":webhook", webhookId);

  for (const [label, bad] of [
    ["NUL", NUL],
    ["an unpaired surrogate", LONE],
  ] as const) {
    for (const [method, route, what, json, field] of cases(bad)) {
      test(`${label} in ${method} ${route} ${what}: 400 naming ${field}, nothing stored`, async () => {
        const before = await state();
        const res = await t.call(`${P}${path(route)}`, { method, key, json });
        expectValidationError(res, field);
        expect(await state()).toEqual(before);
      });
    }

    test(`${label} in admin account and key names: 400, nothing stored`, async () => {
      const before = await state();
      expectValidationError(await t.admin("POST", "/accounts", { name: bad, tier: "free" }), "body.name");
      expectValidationError(await t.admin("POST", `/accounts/${accountId}/keys`, { name: bad, scopes: ["links:read"] }), "body.name");
      expect(await state()).toEqual(before);
    });
  }

  test("NUL in the search, tags and domain filters of GET /links: 400 naming the parameter", async () => {
    for (const name of ["search", "tags", "domain"]) {
      expectValidationError(await t.call(`${P}/links?${name}=a%00b`, { key }), `query.${name}`);
    }
  });

  test("invalid UTF-8 in a filter (no surrogate can arrive percent-encoded) reads as U+FFFD and answers 200", async () => {
    const res = await t.call(`${P}/links?search=%ED%A0%80&tags=%FF&domain=%C3`, { key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  test("a NUL in an object key is refused too, naming where it is", async () => {
    const res = await t.call(`${P}/journey/events`, {
      method: "POST",
      key,
      body: JSON.stringify({
        events: [{ link_id: linkId, visitor_id: "v", event_type: "custom", page_url: "/", properties: { "k\u0000": 1 } }],
      }),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields[0].field).toStartWith("body.events.0.properties.k");
    expect(res.body.error.details.fields[0].index).toBe(0);
  });
});

describe("4. a conversion whose properties hold a NUL", () => {
  test("is refused with 400 naming the field; no event and no webhook delivery are stored", async () => {
    const link = (await t.call(`${P}/links`, { method: "POST", key, json: { url: "https://example.com/c", title: "t", description: "d" } }))
      .body.data;
    await t.call(`${P}/webhooks`, { method: "POST", key, json: { url: "https://93.184.215.14/c", events: ["conversion"] } });
    const conversion = (props: Record<string, string>) => ({
      events: [
        { link_id: link.id, visitor_id: "v1", event_type: "page_view", page_url: "https://shop.example/" },
        { link_id: link.id, visitor_id: "v1", event_type: "conversion", page_url: "https://shop.example/paid", properties: props },
      ],
    });
    for (const bad of ["x\u0000y", "x\udc00"]) {
      const res = await t.call(`${P}/journey/events`, { method: "POST", key, json: conversion({ note: bad }) });
      expectValidationError(res, "body.events.1.properties.note");
      expect(res.body.error.details.fields[0].index).toBe(1);
    }
    // The same sent as text/plain (what a browser sends without a preflight) is checked the same way.
    const plain = await t.call(`${P}/journey/events`, {
      method: "POST",
      key,
      body: JSON.stringify(conversion({ note: "x\u0000y" })),
      headers: { "content-type": "text/plain" },
    });
    expectValidationError(plain, "body.events.1.properties.note");

    const ok = await t.call(`${P}/journey/events`, { method: "POST", key, json: conversion({ note: "fine" }) });
    expect(ok.status).toBe(202);
    await t.flush();
    const events = await t.call(`${P}/journey/links/${link.id}/events?period=24h`, { key });
    expect(events.body.data.map((e: any) => e.properties?.note ?? null).sort()).toEqual(["fine", null]);
    const endpoints = (await t.call(`${P}/webhooks`, { key })).body.data.filter((w: any) => w.events.includes("conversion"));
    const deliveries = (await t.call(`${P}/webhooks/${endpoints[0].id}/deliveries`, { key })).body.data;
    expect(deliveries.map((d: any) => d.payload.data.properties.note)).toEqual(["fine"]);
  });
});

describe("7. bodies: nesting, arrays for objects, size", () => {
  test("a title nested 10,000 deep is a 400 naming body", async () => {
    let deep = '"x"';
    for (let i = 0; i < 10_000; i++) deep = `{"title":${deep}}`;
    const res = await t.call(`${P}/links`, { method: "POST", key, body: deep, headers: { "content-type": "application/json" } });
    expectValidationError(res, "body");
    expect(res.body.error.message).toContain("nested deeper than");
  });

  test("PATCH with a [] body is a 400, not an empty update", async () => {
    const link = (await t.call(`${P}/links`, { method: "POST", key, json: { url: "https://example.com/p", title: "t", description: "d" } }))
      .body.data;
    for (const body of ["[]", '["title"]']) {
      const res = await t.call(`${P}/links/${link.id}`, { method: "PATCH", key, body, headers: { "content-type": "application/json" } });
      expectValidationError(res, "body");
    }
    expect((await t.call(`${P}/links/${link.id}`, { key })).body.data.updated_at).toBe(link.updated_at);
  });

  test("over the size cap: 413 in the envelope, with a declared length and with a chunked body", async () => {
    const small = serveApp(t.runtime, { port: 0, hostname: "127.0.0.1", maxBodyBytes: 1000 });
    try {
      const url = `http://127.0.0.1:${small.port}${P}/links`;
      const big = JSON.stringify({ url: "https://example.com/big", title: "x".repeat(2000) });
      const chunked = (text: string) =>
        new ReadableStream({
          start(c) {
            for (let i = 0; i < text.length; i += 100) c.enqueue(new TextEncoder().encode(text.slice(i, i + 100)));
            c.close();
          },
        });
      for (const body of [big, chunked(big)]) {
        const res = await fetch(url, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body });
        expect(res.status).toBe(413);
        const json = (await res.json()) as any;
        expect(json).toMatchObject({
          success: false,
          error: { code: "PAYLOAD_TOO_LARGE", details: { max_bytes: 1000 } },
          meta: { status: 413 },
        });
      }
      // Under the cap, a chunked body is read and handled like any other.
      const fine = JSON.stringify({ url: "https://example.com/chunked", title: "t", description: "d" });
      const res = await fetch(url, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: chunked(fine),
      });
      expect(res.status).toBe(201);
    } finally {
      small.stop(true);
    }
  });

  test("a chunked body keeps the client address: IP allowlists still apply", async () => {
    const { key: fenced } = await t.createAccount({ allowed_ips: ["203.0.113.0/24"] });
    const { key: local } = await t.createAccount({ allowed_ips: ["127.0.0.1"] });
    const post = (k: string) =>
      fetch(`${server.url}${P}/campaigns`, {
        method: "POST",
        headers: { "x-api-key": k, "content-type": "application/json" },
        body: new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode(JSON.stringify({ name: "chunked" })));
            c.close();
          },
        }),
      });
    expect((await post(fenced)).status).toBe(403);
    expect((await post(local)).status).toBe(201);
  });
});
