// Text that other people's servers send us is stored, not refused: a destination page's title with a
// NUL or invalid UTF-8, a webhook receiver answering NUL bytes. And a javascript: og:image is dropped.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { startReceiver } from "../webhooks/receiver";
import { extractMetadata } from "../../server/links/metadata";

const P = "/public-api/v1";
let t: TestApp;
let key: string;
let site: ReturnType<typeof Bun.serve>;
const pages = new Map<string, () => Response>();

const html = (head: string | Uint8Array) =>
  new Response(typeof head === "string" ? `<html><head>${head}</head><body>hi</body></html>` : (head as BodyInit), {
    headers: { "content-type": "text/html; charset=utf-8" },
  });

beforeAll(async () => {
  t = await createTestApp({}, { WEBHOOK_ALLOW_INSECURE: "true", WEBHOOK_RETRY_DELAYS_MS: "50,50" });
  ({ key } = await t.createAccount({ tier: "scale" }));
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => (pages.get(new URL(req.url).pathname) ?? (() => new Response("no", { status: 404 })))(),
  });
});
afterAll(async () => {
  site.stop(true);
  await t.close();
});

const createFor = async (path: string, page: () => Response) => {
  pages.set(path, page);
  const res = await t.call(`${P}/links`, { method: "POST", key, json: { url: `http://127.0.0.1:${site.port}${path}` } });
  expect(res.status).toBe(201);
  return res.body.data;
};

describe("destination metadata", () => {
  // With a subscriber, link.created carries the page's text into a jsonb payload in the same transaction
  // as the link: jsonb refuses what text would have silently replaced, so this is where it shows.
  beforeAll(async () => {
    const hook = await t.call(`${P}/webhooks`, { method: "POST", key, json: { url: "https://93.184.215.14/h", events: ["link.created"] } });
    expect(hook.status).toBe(201);
  });

  test("a <title> with a NUL byte is stored with U+FFFD; the create does not fail", async () => {
    const link = await createFor("/nul", () => html("<title>Sale\u0000 today</title><meta name=description content='a\u0000b'>"));
    expect(link.title).toBe("Sale\uFFFD today");
    expect(link.description).toBe("a\uFFFDb");
  });

  test("invalid UTF-8 and an entity for a lone surrogate become U+FFFD", async () => {
    const bytes = Buffer.concat([
      Buffer.from("<html><head><title>caf"),
      Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80, 0xff]),
      Buffer.from("</title><meta property='og:description' content='x&#xD800;y'></head></html>"),
    ]);
    const link = await createFor("/utf8", () => html(bytes));
    expect(link.title).toStartWith("caf\uFFFD");
    expect(link.title.isWellFormed()).toBe(true);
    expect(link.title).not.toContain("\u0000");
    expect(link.description).toBe("x\uFFFDy");
    // Stored as answered: the read from Postgres is the same.
    expect((await t.call(`${P}/links/${link.id}`, { key })).body.data.title).toBe(link.title);
  });

  test("og:image that is not an http(s) URL is dropped, as the API refuses it; a relative one is resolved", async () => {
    for (const image of ["javascript:alert(document.cookie)", "data:image/svg+xml,<svg onload=alert(1)>", "  JaVaScRiPt:alert(1)"]) {
      const link = await createFor(`/img-${encodeURIComponent(image).slice(0, 20)}`, () =>
        html(`<title>t</title><meta property="og:image" content="${image}">`),
      );
      expect(link.og_image).toBeNull();
    }
    const good = await createFor("/img-good", () => html('<title>t</title><meta property="og:image" content="/pics/a.png">'));
    expect(good.og_image).toBe(`http://127.0.0.1:${site.port}/pics/a.png`);
  });

  test("extraction itself yields storable text (Postgres text would hide a lone surrogate as U+FFFD)", async () => {
    const page = (head: string) => new TextEncoder().encode(`<html><head>${head}</head></html>`);
    const base = new URL("https://example.com/");
    const entity = await extractMetadata(page("<title>a&#xD800;b</title><meta name=description content='c\u0000d'>"), base);
    expect(entity).toEqual({ title: "a\uFFFDb", description: "c\uFFFDd", image: undefined });
    const cut = await extractMetadata(page(`<title>${"a".repeat(499)}😀😀</title>`), base);
    expect(cut.title?.isWellFormed()).toBe(true);
    expect(cut.title?.endsWith("\uFFFD")).toBe(true);
  });

  test("a title cut at 500 characters never leaves half a surrogate pair", async () => {
    const link = await createFor("/emoji", () => html(`<title>${"a".repeat(499)}😀😀</title>`));
    expect(link.title.isWellFormed()).toBe(true);
    expect(link.title.length).toBeLessThanOrEqual(500);
  });
});

describe("webhook receivers", () => {
  const endpoint = async (url: string) =>
    (await t.call(`${P}/webhooks`, { method: "POST", key, json: { url, events: ["link.created"] } })).body.data;

  test("a 200 with NUL bytes in its body: delivered, counted once, the body stored with U+FFFD", async () => {
    const receiver = startReceiver(() => new Response("ok\u0000\u0000 done", { status: 200 }));
    try {
      const hook = await endpoint(receiver.url);
      const res = await t.call(`${P}/webhooks/${hook.id}/test`, { method: "POST", key });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        status: "delivered",
        attempt_number: 1,
        http_status: 200,
        response_body: "ok\uFFFD\uFFFD done",
      });
      expect(receiver.received.length).toBe(1);
      const listed = (await t.call(`${P}/webhooks/${hook.id}/deliveries`, { key })).body.data;
      expect(listed[0]).toMatchObject({ status: "delivered", response_body: "ok\uFFFD\uFFFD done" });
    } finally {
      receiver.stop();
    }
  });

  test("a 500 with NUL bytes and invalid UTF-8: every attempt counts, the delivery ends failed, no endless retries", async () => {
    const body = Buffer.concat([Buffer.from("err\u0000"), Buffer.from([0xff, 0xfe, 0xc3])]);
    const receiver = startReceiver(() => new Response(body, { status: 500 }));
    try {
      const hook = await endpoint(receiver.url);
      await t.call(`${P}/links`, { method: "POST", key, json: { url: "https://example.com/w", title: "t", description: "d" } });
      await receiver.waitFor((all) => all.length >= 3, 30_000);
      let delivery: any;
      for (let i = 0; i < 300; i++) {
        delivery = (await t.call(`${P}/webhooks/${hook.id}/deliveries`, { key })).body.data[0];
        if (delivery?.status === "failed") break;
        await Bun.sleep(50);
      }
      expect(delivery).toMatchObject({ status: "failed", attempt_number: 3, http_status: 500 });
      expect(delivery.response_body).toStartWith("err\uFFFD");
      expect((await t.call(`${P}/webhooks/${hook.id}`, { key })).body.data.consecutive_failures).toBe(3);
      expect(receiver.received.length).toBe(3);
    } finally {
      receiver.stop();
    }
  });
});
