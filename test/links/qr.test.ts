// GET /links/{id}/qr and the QR logo: every image is decoded by an independent decoder (jsQR, on pixels
// that sharp renders; SVGs are rasterized by librsvg), and the decoded URL is followed through a real
// redirect server, which records the click as a scan.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import jsQR from "jsqr";
import sharp from "sharp";
import { createTestApp, listen, type TestApp } from "../helpers/app";

let t: TestApp;
let key: string;
let server: { url: string; stop(): Promise<void> };
const P = "/public-api/v1";

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.createAccount({ tier: "growth" }));
  server = listen(t);
});
afterAll(async () => {
  await server.stop();
  await t.close();
});

const createLink = async (k = key) =>
  (await t.call(`${P}/links`, { method: "POST", key: k, json: { url: "https://example.com/menu", title: "Menu", description: "D" } })).body
    .data;
const qr = (id: string, query = "", k = key) => t.request(`${P}/links/${id}/qr${query}`, { key: k });

/** The text of the QR code in an image (PNG or SVG), decoded by jsQR; null when it finds none. */
async function decode(bytes: Uint8Array) {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), info.width, info.height)?.data ?? null;
}
const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());

describe("GET /links/{id}/qr", () => {
  test("SVG by default: the short URL with the scan marker, which the redirect strips and records as a scan", async () => {
    const link = await createLink();
    const res = await qr(link.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    const svg = await bytesOf(res);
    expect(new TextDecoder().decode(svg)).toStartWith("<svg");
    const text = await decode(svg);
    expect(text).toBe(`${link.short_url}?qr=1`);
    // Follow what a phone would open (on the loopback server's port instead of BASE_URL's).
    const scanned = new URL(text!);
    const hop = await fetch(`${server.url}${scanned.pathname}${scanned.search}`, {
      redirect: "manual",
      headers: { "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 Safari/604.1" },
    });
    expect(hop.status).toBe(302);
    expect(hop.headers.get("location")).toBe("https://example.com/menu");
    await t.flush();
    const rows = await t.runtime.deps.ch.query<{ source: string }>(
      `SELECT source FROM ${t.runtime.deps.ch.table("clicks")} WHERE link_id = {id:UUID}`,
      { id: link.id },
    );
    expect(rows).toEqual([{ source: "qr" }]);
  });

  test("PNG of the asked size, colours and quiet zone, at every error correction level", async () => {
    const link = await createLink();
    for (const level of ["L", "M", "Q", "H"]) {
      const res = await qr(link.id, `?format=png&size=300&margin=6&level=${level}&fg=%231a237e&bg=fffde7`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      const png = await bytesOf(res);
      const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height]).toEqual([300, 300]);
      expect(await decode(png)).toBe(`${link.short_url}?qr=1`);
      // The quiet zone (6 modules of at least 5.6 pixels for any code up to 41 modules) is background.
      const px = (x: number, y: number) => [...data.subarray((y * 300 + x) * info.channels, (y * 300 + x) * info.channels + 3)];
      for (let y = 0; y < 30; y += 3) for (let x = 0; x < 300; x += 7) expect(px(x, y)).toEqual([0xff, 0xfd, 0xe7]);
      for (let x = 0; x < 30; x += 3) for (let y = 0; y < 300; y += 7) expect(px(x, y)).toEqual([0xff, 0xfd, 0xe7]);
      const darks = [...Array(300).keys()].filter((x) => px(x, 150).join() === "26,35,126");
      expect(darks.length).toBeGreaterThan(0);
    }
  });

  test("a logo (uploaded, Growth+) in the middle still scans, as PNG and as SVG", async () => {
    const link = await createLink();
    const logo = await sharp({ create: { width: 200, height: 120, channels: 4, background: { r: 220, g: 30, b: 30, alpha: 1 } } })
      .png()
      .toBuffer();
    const put = await t.call(`${P}/links/${link.id}/qr-logo`, { method: "PUT", key, body: logo, headers: { "content-type": "image/png" } });
    expect(put.status).toBe(200);
    expect(put.body.data.qr_logo).toStartWith(`${t.config.cdnUrl}/qr-logo/${link.id}-`);
    expect((await t.call(`${P}/links/${link.id}`, { key })).body.data.qr_logo).toBe(put.body.data.qr_logo);
    const served = await t.request(new URL(put.body.data.qr_logo).pathname);
    expect(served.headers.get("content-type")).toBe("image/png");
    for (const format of ["png", "svg"]) {
      const res = await qr(link.id, `?format=${format}&size=400&logo=true`);
      expect(res.status).toBe(200);
      const image = await bytesOf(res);
      expect(await decode(image)).toBe(`${link.short_url}?qr=1`);
      // The logo is there: red pixels in the middle.
      const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
      const mid = (200 * info.width + 200) * info.channels;
      expect([...data.subarray(mid, mid + 3)]).toEqual([220, 30, 30]);
    }
    expect((await qr(link.id, "?logo=true&level=M")).status).toBe(400);
    const del = await t.call(`${P}/links/${link.id}/qr-logo`, { method: "DELETE", key });
    expect(del.body.data).toEqual({ qr_logo: null, message: "QR logo removed" });
    expect((await t.request(new URL(put.body.data.qr_logo).pathname)).status).toBe(404);
    const none = await t.call(`${P}/links/${link.id}/qr?logo=true`, { key });
    expect(none.status).toBe(400);
    expect(none.body.error.details.fields[0].field).toBe("query.logo");
  });

  test("unreadable colours, sizes and margins are refused with the field named", async () => {
    const link = await createLink();
    const cases: [string, string][] = [
      ["?fg=%23777777&bg=%23888888", "query.fg"], // 1.3:1
      ["?fg=ffffff&bg=000000", "query.fg"], // inverted
      ["?fg=red", "query.fg"],
      ["?bg=%23ggg", "query.bg"],
      ["?size=63", "query.size"],
      ["?size=2049", "query.size"],
      ["?margin=0", "query.margin"],
      ["?margin=17", "query.margin"],
      ["?format=gif", "query.format"],
      ["?level=X", "query.level"],
      ["?logo=true&level=L", "query.level"],
    ];
    for (const [query, field] of cases) {
      const res = await t.call(`${P}/links/${link.id}/qr${query}`, { key });
      expect(res.status).toBe(400);
      expect(res.body.error.details.fields[0].field).toBe(field);
    }
    // Enough contrast in colour passes.
    expect(await decode(await bytesOf(await qr(link.id, "?format=png&fg=%23c62828&bg=%23ffffff")))).toBe(`${link.short_url}?qr=1`);
  });

  test("another account's link is 404; the route needs links:read; logo upload needs Growth", async () => {
    const link = await createLink();
    const other = await t.createAccount({ tier: "free" });
    expect((await qr(link.id, "", other.key)).status).toBe(404);
    const narrow = await t.createAccount({ scopes: ["analytics:read"] });
    expect((await qr(link.id, "", narrow.key)).status).toBe(403);
    const own = await createLink(other.key);
    const res = await t.call(`${P}/links/${own.id}/qr-logo`, {
      method: "PUT",
      key: other.key,
      body: new Uint8Array([1, 2, 3]),
      headers: { "content-type": "image/png" },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("TIER_UPGRADE_REQUIRED");
  });
});
