import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import sharp from "sharp";
import { createTestApp, type TestApp } from "../helpers/app";

let t: TestApp;
const P = "/public-api/v1";
beforeAll(async () => {
  t = await createTestApp({}, { BULK_TIMEOUT_MS: "60000" });
});
afterAll(() => t.close());

const bulk = (key: string, items: unknown) => t.call(`${P}/links/bulk`, { method: "POST", key, json: items });
const item = (i: number, extra: Record<string, unknown> = {}) => ({
  url: `https://example.com/${i}`,
  title: `t${i}`,
  description: "d",
  ...extra,
});

describe("POST /links/bulk", () => {
  test("201 when all succeed, with the BulkCreateResult shape", async () => {
    const { key } = await t.createAccount({ tier: "scale" });
    const res = await bulk(key, [item(1), item(2, { note: "a field POST /links ignores" })]);
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject({ total_requested: 2, success_count: 2, failure_count: 0, failed: [] });
    expect(res.body.data.created.map((c: any) => c.index)).toEqual([0, 1]);
    expect(res.body.data.created[0].link).toMatchObject({ original_url: "https://example.com/1" });
    expect(res.body.data.created[0].link.short_url).toStartWith("http://127.0.0.1:3000/");
  });

  test("207 on partial success (success false), failures with index, url, error and error_type", async () => {
    const { key } = await t.createAccount({ tier: "scale" });
    const alias = `dup-${Date.now()}`;
    const res = await bulk(key, [
      item(1),
      { url: "ftp://bad" },
      item(3, { custom_alias: alias }),
      item(4, { custom_alias: alias }),
      { title: "no url" },
    ]);
    expect(res.status).toBe(207);
    expect(res.body.success).toBe(false);
    expect(res.body.data.success_count).toBe(2);
    expect(res.body.data.failed[0].error).toContain("body.1.url");
    expect(res.body.data.failed[2].error).toContain("body.4");
    expect(res.body.data.failed).toEqual([
      { index: 1, url: "ftp://bad", error: expect.stringContaining("http"), error_type: "validation" },
      { index: 3, url: "https://example.com/4", error: expect.stringContaining(alias), error_type: "conflict" },
      { index: 4, url: "", error: expect.any(String), error_type: "validation" },
    ]);
  });

  test("422 when all fail; 400 over the tier's batch maximum", async () => {
    const { key } = await t.createAccount({ tier: "free" });
    const allBad = await bulk(key, [{ url: "nope" }, { url: "ftp://x" }]);
    expect(allBad.status).toBe(422);
    expect(allBad.body.data.failure_count).toBe(2);
    const tooMany = await bulk(
      key,
      Array.from({ length: 11 }, (_, i) => item(i)),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details.max).toBe(10);
  });

  test("408 REQUEST_TIMEOUT past the processing cap, keeping and reporting what was created", async () => {
    const fast = await createTestApp({}, { BULK_TIMEOUT_MS: "1" });
    try {
      const { key } = await fast.createAccount({ tier: "scale" });
      const res = await fast.call(`${P}/links/bulk`, { method: "POST", key, json: Array.from({ length: 2000 }, (_, i) => item(i)) });
      expect(res.status).toBe(408);
      expect(res.body.error.code).toBe("REQUEST_TIMEOUT");
      const kept = (await fast.call(`${P}/links?per_page=1`, { key })).body.meta.total;
      expect(kept).toBe(res.body.error.details.success_count);
    } finally {
      await fast.close();
    }
  });

  test("10,000 links in one request on the Scale tier", async () => {
    const { key } = await t.createAccount({ tier: "scale" });
    const started = performance.now();
    const res = await bulk(
      key,
      Array.from({ length: 10_000 }, (_, i) => item(i)),
    );
    const seconds = (performance.now() - started) / 1000;
    expect(res.status).toBe(201);
    expect(res.body.data.success_count).toBe(10_000);
    expect(new Set(res.body.data.created.map((c: any) => c.link.short_url)).size).toBe(10_000);
    console.log(`bulk 10,000 links: ${seconds.toFixed(2)} s`);
  }, 120_000);
});

describe("PUT /links/{id}/og-image", () => {
  const png = () =>
    sharp({ create: { width: 300, height: 200, channels: 3, background: "#3366ff" } })
      .png()
      .toBuffer();

  test("resizes to 1200x630 WebP, serves it from the CDN URL, and DELETE removes it", async () => {
    const { key } = await t.createAccount({ tier: "growth" });
    const link = (await t.call(`${P}/links`, { method: "POST", key, json: item(1) })).body.data;
    const res = await t.call(`${P}/links/${link.id}/og-image`, {
      method: "PUT",
      key,
      body: await png(),
      headers: { "content-type": "image/png" },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.og_image).toStartWith("http://127.0.0.1:3000/cdn/og/");
    const image = await t.request(new URL(res.body.data.og_image).pathname);
    expect(image.headers.get("content-type")).toBe("image/webp");
    const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 1200, 630]);
    expect((await t.call(`${P}/links/${link.id}`, { key })).body.data.og_image).toBe(res.body.data.og_image);
    const del = await t.call(`${P}/links/${link.id}/og-image`, { method: "DELETE", key });
    expect(del.status).toBe(200);
    expect((await t.request(new URL(res.body.data.og_image).pathname)).status).toBe(404);
    expect((await t.call(`${P}/links/${link.id}`, { key })).body.data.og_image).toBeNull();
  });

  test("a link pointed at another account's uploaded image cannot delete or replace it", async () => {
    const owner = await t.createAccount({ tier: "growth" });
    const theirs = (await t.call(`${P}/links`, { method: "POST", key: owner.key, json: item(1) })).body.data;
    const url = (
      await t.call(`${P}/links/${theirs.id}/og-image`, {
        method: "PUT",
        key: owner.key,
        body: await png(),
        headers: { "content-type": "image/png" },
      })
    ).body.data.og_image;
    const other = await t.createAccount({ tier: "growth" });
    const mine = (await t.call(`${P}/links`, { method: "POST", key: other.key, json: item(2) })).body.data;
    expect((await t.call(`${P}/links/${mine.id}`, { method: "PATCH", key: other.key, json: { og_image: url } })).status).toBe(200);
    expect(
      (
        await t.call(`${P}/links/${mine.id}/og-image`, {
          method: "PUT",
          key: other.key,
          body: await png(),
          headers: { "content-type": "image/png" },
        })
      ).status,
    ).toBe(200);
    expect((await t.call(`${P}/links/${mine.id}`, { method: "PATCH", key: other.key, json: { og_image: url } })).status).toBe(200);
    expect((await t.call(`${P}/links/${mine.id}/og-image`, { method: "DELETE", key: other.key })).status).toBe(200);
    expect((await t.request(new URL(url).pathname)).status).toBe(200);
  });

  test("415 for other types, 413 over 5 MB, 403 below Growth", async () => {
    const { key } = await t.createAccount({ tier: "growth" });
    const link = (await t.call(`${P}/links`, { method: "POST", key, json: item(1) })).body.data;
    const put = (body: BodyInit, type: string, k = key) =>
      t.call(`${P}/links/${link.id}/og-image`, { method: "PUT", key: k, body, headers: { "content-type": type } });
    expect((await put("hello", "text/plain")).status).toBe(415);
    const big = await put(new Uint8Array(5 * 1024 * 1024 + 1), "image/png");
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    const basic = await t.createAccount({ tier: "basic" });
    const basicLink = (await t.call(`${P}/links`, { method: "POST", key: basic.key, json: item(2) })).body.data;
    const gated = await t.call(`${P}/links/${basicLink.id}/og-image`, {
      method: "PUT",
      key: basic.key,
      body: await png(),
      headers: { "content-type": "image/png" },
    });
    expect(gated.status).toBe(403);
    expect(gated.body.error.code).toBe("TIER_UPGRADE_REQUIRED");
  });
});
