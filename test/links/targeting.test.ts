// Targeting rules, A/B variants, click limits and fallback URLs: the links API's validation and merge
// rules, and what a visitor gets from the redirect (over a real loopback server, behind TRUST_PROXY so
// tests can give the client address and the proxy's country header).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, listen, type TestApp } from "../helpers/app";

let t: TestApp;
let key: string;
let accountId: string;
let server: { url: string; stop(): Promise<void> };
const P = "/public-api/v1";

beforeAll(async () => {
  t = await createTestApp({ trustProxy: true }, { WEBHOOK_ALLOW_INSECURE: "true" });
  ({ key, accountId } = await t.createAccount({ tier: "scale" }));
  server = listen(t);
});
afterAll(async () => {
  await server.stop();
  await t.close();
});

const DESKTOP = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

const create = (json: Record<string, unknown>) =>
  t.call(`${P}/links`, { method: "POST", key, json: { url: "https://example.com/home", title: "T", description: "D", ...json } });
const createOk = async (json: Record<string, unknown>) => {
  const res = await create(json);
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data;
};
const patch = (id: string, json: Record<string, unknown>) => t.call(`${P}/links/${id}`, { method: "PATCH", key, json });
const visit = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { redirect: "manual", headers: { "user-agent": DESKTOP, ...headers } });
const location = async (path: string, headers: Record<string, string> = {}) => {
  const res = await visit(path, headers);
  expect(res.status).toBe(302);
  return res.headers.get("location")!;
};
const linkCount = async () =>
  (await t.runtime.deps.pg.query<{ n: number }>(sql`select count(*)::int as n from links where account_id = ${accountId}`))[0].n;
const clicksOf = async (linkId: string) => {
  await t.flush();
  return t.runtime.deps.ch.query<{ source: string; variant: string; rule: number; query: string }>(
    `SELECT source, variant, rule, query FROM ${t.runtime.deps.ch.table("clicks")} WHERE link_id = {id:UUID} ORDER BY timestamp`,
    { id: linkId },
  );
};

describe("the links API", () => {
  test("rules, variants and limits appear in the Link object, normalized", async () => {
    const link = await createOk({
      rules: [
        { if: { country: ["de", "AT"], language: ["DE"] }, url: "https://example.com/de" },
        { if: { device: ["mobile"], os: ["ios"] }, url: "https://apps.apple.com/app/id1" },
      ],
      variants: [
        { url: "https://example.com/a", weight: 70 },
        { url: "https://example.com/b", weight: 30 },
      ],
      max_clicks: 1000,
      max_clicks_url: "https://example.com/sold-out",
      expired_url: "https://example.com/ended",
    });
    expect(link.rules).toEqual([
      { if: { country: ["DE", "AT"], language: ["de"] }, url: "https://example.com/de" },
      { if: { device: ["mobile"], os: ["ios"] }, url: "https://apps.apple.com/app/id1" },
    ]);
    expect(link.variants).toEqual([
      { url: "https://example.com/a", weight: 70 },
      { url: "https://example.com/b", weight: 30 },
    ]);
    expect(link).toMatchObject({
      max_clicks: 1000,
      counted_clicks: 0,
      max_clicks_url: "https://example.com/sold-out",
      expired_url: "https://example.com/ended",
    });
    const plain = await createOk({});
    expect(plain).toMatchObject({
      rules: [],
      variants: [],
      max_clicks: null,
      counted_clicks: null,
      max_clicks_url: null,
      expired_url: null,
    });
    expect((await t.call(`${P}/links/${link.id}`, { key })).body.data).toEqual(link);
  });

  test("OS, device, country and language are taken in any case and stored as the API answers them", async () => {
    const link = await createOk({
      rules: [
        { if: { os: ["iOS", "Android", "IOS"], device: ["Mobile"], country: ["De"], language: ["EN"] }, url: "https://example.com/app" },
      ],
    });
    const stored = [
      { if: { os: ["ios", "android"], device: ["mobile"], country: ["DE"], language: ["en"] }, url: "https://example.com/app" },
    ];
    expect(link.rules).toEqual(stored);
    expect((await t.call(`${P}/links/${link.id}`, { key })).body.data.rules).toEqual(stored);
    const patched = (await patch(link.id, { rules: [{ if: { os: ["MacOS"], device: ["DESKTOP"] }, url: "https://example.com/mac" }] })).body
      .data;
    expect(patched.rules).toEqual([{ if: { os: ["macos"], device: ["desktop"] }, url: "https://example.com/mac" }]);
    expect(await location(`/${link.short_code}`)).toBe("https://example.com/mac");
  });

  test("a value outside a list is refused with the allowed values named", async () => {
    const os = await create({ rules: [{ if: { os: ["iOS", "BeOS"] }, url: "https://example.com/x" }] });
    expect(os.body.error.details.fields[0]).toEqual({
      field: "body.rules.0.if.os.1",
      message: '"BeOS" is not one of ios, android, windows, macos, linux, chromeos',
    });
    const device = await create({ rules: [{ if: { device: [7] }, url: "https://example.com/x" }] });
    expect(device.body.error.details.fields[0].field).toBe("body.rules.0.if.device.0");
    const limit = await create({ max_clicks: "many" });
    expect(limit.body.error.details.fields[0]).toEqual({ field: "body.max_clicks", message: "must be integer or null" });
    const zero = await create({ max_clicks: 0 });
    expect(zero.body.error.details.fields[0]).toEqual({
      field: "body.max_clicks",
      message: "Expected integer to be greater or equal to 1",
    });
  });

  test("bad rules, variants and limits are refused with the field named, and nothing is created", async () => {
    const before = await linkCount();
    const cases: [Record<string, unknown>, string][] = [
      [{ rules: [{ if: { country: ["DE", "ZZ"] }, url: "https://example.com/x" }] }, "body.rules.0.if.country.1"],
      [{ rules: [{ if: { language: ["en", "english"] }, url: "https://example.com/x" }] }, "body.rules.0.if.language.1"],
      [{ rules: [{ if: { language: ["xq"] }, url: "https://example.com/x" }] }, "body.rules.0.if.language.0"],
      [{ rules: [{ if: {}, url: "https://example.com/x" }] }, "body.rules.0.if"],
      [{ rules: [{ if: { device: ["mobile"] }, url: "javascript:alert(1)" }] }, "body.rules.0.url"],
      [{ rules: [{ if: { device: ["phone"] }, url: "https://example.com/x" }] }, "body.rules.0.if.device.0"],
      [{ rules: [{ if: { os: ["beos"] }, url: "https://example.com/x" }] }, "body.rules.0.if.os.0"],
      [
        {
          variants: [
            { url: "https://example.com/a", weight: 50 },
            { url: "https://example.com/b", weight: 40 },
          ],
        },
        "body.variants",
      ],
      [{ variants: [{ url: "https://example.com/a", weight: 100 }] }, "body.variants"],
      [
        {
          variants: [
            { url: "https://example.com/a", weight: 50 },
            { url: "https://example.com/a", weight: 50 },
          ],
        },
        "body.variants.1.url",
      ],
      [
        {
          variants: [
            { url: "https://example.com/a", weight: 50 },
            { url: "ftp://example.com/b", weight: 50 },
          ],
        },
        "body.variants.1.url",
      ],
      [{ max_clicks: 0 }, "body.max_clicks"],
      [{ max_clicks: 2.5 }, "body.max_clicks"],
      [{ max_clicks_url: "http://user:pw@example.com/" }, "body.max_clicks_url"],
      [{ expired_url: "not a url" }, "body.expired_url"],
    ];
    for (const [json, field] of cases) {
      const res = await create(json);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details.fields[0].field).toBe(field);
    }
    expect(await linkCount()).toBe(before);
  });

  test("PATCH merges as for the other fields: omitted keeps, a value replaces, [] or null clears; bad values change nothing", async () => {
    const link = await createOk({
      rules: [{ if: { query: { name: "src", value: "mail" } }, url: "https://example.com/mail" }],
      max_clicks: 5,
      expired_url: "https://example.com/ended",
    });
    const kept = (await patch(link.id, { title: "Renamed" })).body.data;
    expect(kept).toMatchObject({ rules: link.rules, max_clicks: 5, expired_url: "https://example.com/ended" });
    const refused = await patch(link.id, { rules: [{ if: { country: ["XX"] }, url: "https://example.com/x" }], max_clicks: 9 });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.fields[0].field).toBe("body.rules.0.if.country.0");
    expect((await t.call(`${P}/links/${link.id}`, { key })).body.data).toMatchObject({ rules: link.rules, max_clicks: 5 });
    const replaced = (
      await patch(link.id, {
        rules: [{ if: { os: ["android"] }, url: "https://play.google.com/store/apps/details?id=x" }],
        variants: [
          { url: "https://example.com/a", weight: 50 },
          { url: "https://example.com/b", weight: 50 },
        ],
        max_clicks: 7,
      })
    ).body.data;
    expect(replaced.rules).toEqual([{ if: { os: ["android"] }, url: "https://play.google.com/store/apps/details?id=x" }]);
    expect(replaced.variants).toHaveLength(2);
    expect(replaced.max_clicks).toBe(7);
    const cleared = (await patch(link.id, { rules: [], variants: [], max_clicks: null, expired_url: null })).body.data;
    expect(cleared).toMatchObject({ rules: [], variants: [], max_clicks: null, counted_clicks: null, expired_url: null });
  });

  test("bulk create takes the same fields and names the failing item's field", async () => {
    const res = await t.call(`${P}/links/bulk`, {
      method: "POST",
      key,
      json: [
        { url: "https://example.com/1", title: "t", description: "d", rules: [{ if: { country: ["FR"] }, url: "https://example.com/fr" }] },
        {
          url: "https://example.com/2",
          title: "t",
          description: "d",
          rules: [{ if: { country: ["FRA"] }, url: "https://example.com/fr" }],
        },
        { url: "https://example.com/3", title: "t", description: "d", max_clicks: 10, max_clicks_url: "https://example.com/full" },
      ],
    });
    expect(res.status).toBe(207);
    expect(res.body.data.failed).toHaveLength(1);
    expect(res.body.data.failed[0]).toMatchObject({ index: 1, error_type: "validation" });
    expect(res.body.data.failed[0].error).toContain("body.1.rules.0.if.country.0");
    const first = (await t.call(`${P}/links/${res.body.data.created[0].link.id}`, { key })).body.data;
    expect(first.rules).toEqual([{ if: { country: ["FR"] }, url: "https://example.com/fr" }]);
    const third = (await t.call(`${P}/links/${res.body.data.created[1].link.id}`, { key })).body.data;
    expect(third).toMatchObject({ max_clicks: 10, max_clicks_url: "https://example.com/full", counted_clicks: 0 });
  });
});

describe("rules at the redirect", () => {
  test("country from the proxy header, else the GeoIP database; device, OS, language and query; first match wins", async () => {
    const link = await createOk({
      url: "https://example.com/home",
      utm_source: "promo",
      rules: [
        { if: { query: { name: "src", value: "mail" } }, url: "https://example.com/mail" },
        { if: { device: ["mobile"], os: ["ios"] }, url: "https://apps.apple.com/app/id1" },
        { if: { os: ["android"] }, url: "https://play.google.com/store/apps/details?id=x" },
        { if: { country: ["DE", "AT"], language: ["de"] }, url: "https://example.com/de" },
        { if: { country: ["DE"] }, url: "https://example.com/de-other-language" },
        { if: { language: ["fr"] }, url: "https://example.com/fr" },
      ],
    });
    const to = async (headers: Record<string, string>, query = "") => {
      const url = new URL(await location(`/${link.short_code}${query}`, headers));
      return url.origin + url.pathname;
    };
    // Nothing matches: the link's own URL.
    expect(await to({})).toBe("https://example.com/home");
    expect(await to({ "cf-ipcountry": "DE", "accept-language": "de-DE,de;q=0.9" })).toBe("https://example.com/de");
    // All conditions of a rule must hold: a German visitor who prefers English falls to the next rule.
    expect(await to({ "cf-ipcountry": "DE", "accept-language": "en-US,en;q=0.9,de;q=0.8" })).toBe("https://example.com/de-other-language");
    // No proxy header: the bundled GeoIP database (5.9.0.1 is in Germany).
    expect(await to({ "x-forwarded-for": "5.9.0.1", "accept-language": "de" })).toBe("https://example.com/de");
    expect(await to({ "x-forwarded-for": "8.8.8.8", "accept-language": "de" })).toBe("https://example.com/home");
    // Quality values: the most preferred language counts, q=0 never does.
    expect(await to({ "accept-language": "en;q=0.5, fr;q=0.9" })).toBe("https://example.com/fr");
    expect(await to({ "accept-language": "fr;q=0, en" })).toBe("https://example.com/home");
    expect(await to({ "user-agent": IPHONE })).toBe("https://apps.apple.com/app/id1");
    expect(await to({ "user-agent": ANDROID })).toBe("https://play.google.com/store/apps/details");
    expect(await to({ "user-agent": WINDOWS, "cf-ipcountry": "AT", "accept-language": "de-AT" })).toBe("https://example.com/de");
    // The first matching rule wins: the query rule comes before the device rule.
    expect(await to({ "user-agent": IPHONE }, "?src=mail")).toBe("https://example.com/mail");

    // UTM and the request's query are merged into a rule's destination as into the link's URL.
    const full = new URL(await location(`/${link.short_code}?src=mail&x=1`));
    expect(Object.fromEntries(full.searchParams)).toEqual({ utm_source: "promo", src: "mail", x: "1" });
    const rules = (await clicksOf(link.id)).map((c) => c.rule);
    expect(rules).toEqual([0, 4, 5, 4, 0, 6, 0, 2, 3, 4, 1, 1]);
  });

  test("a rule's destination gets svc_ref when the link tracks conversions", async () => {
    const link = await createOk({ track_conversions: true, rules: [{ if: { device: ["desktop"] }, url: "https://shop.example/desk" }] });
    const url = new URL(await location(`/${link.short_code}`));
    expect(url.origin + url.pathname).toBe("https://shop.example/desk");
    expect(url.searchParams.get("svc_ref")!.split(".")[0]).toBe(link.id);
  });
});

describe("A/B variants", () => {
  test("new visitors are split by weight; a returning visitor keeps their variant through the cookie", async () => {
    const link = await createOk({
      variants: [
        { url: "https://example.com/a", weight: 80 },
        { url: "https://example.com/b", weight: 20 },
        { url: "https://example.com/paused", weight: 0 },
      ],
    });
    const counts: Record<string, number> = {};
    let cookie = "";
    let first = "";
    const N = 300;
    for (let i = 0; i < N; i++) {
      const res = await visit(`/${link.short_code}`);
      const to = res.headers.get("location")!;
      counts[to] = (counts[to] ?? 0) + 1;
      if (i === 0) {
        first = to;
        cookie = res.headers.get("set-cookie")!;
      }
    }
    // 80/20 over 300 draws: outside 200..275 has a probability below one in a million.
    expect(counts["https://example.com/a"]).toBeGreaterThanOrEqual(200);
    expect(counts["https://example.com/a"]).toBeLessThanOrEqual(275);
    expect(counts["https://example.com/a"] + counts["https://example.com/b"]).toBe(N);
    expect(cookie).toContain(`Path=/${link.short_code}`);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    const pair = cookie.split(";")[0];
    for (let i = 0; i < 20; i++) {
      const res = await visit(`/${link.short_code}`, { cookie: `other=1; ${pair}` });
      expect(res.headers.get("location")).toBe(first);
      expect(res.headers.get("set-cookie")).toBeNull(); // kept, not re-drawn
    }
    // Reweighting keeps returning visitors on their variant.
    await patch(link.id, {
      variants: [
        { url: "https://example.com/b", weight: 50 },
        { url: "https://example.com/a", weight: 50 },
      ],
    });
    expect((await visit(`/${link.short_code}`, { cookie: pair })).headers.get("location")).toBe(first);
    const clicks = await clicksOf(link.id);
    expect(clicks.filter((c) => c.variant === first).length).toBeGreaterThanOrEqual(21);
    expect(new Set(clicks.map((c) => c.variant))).toEqual(new Set(["https://example.com/a", "https://example.com/b"]));
  });

  test("a matching rule comes before the variants", async () => {
    const link = await createOk({
      rules: [{ if: { os: ["ios"] }, url: "https://apps.apple.com/app/id1" }],
      variants: [
        { url: "https://example.com/a", weight: 50 },
        { url: "https://example.com/b", weight: 50 },
      ],
    });
    const res = await visit(`/${link.short_code}`, { "user-agent": IPHONE });
    expect(res.headers.get("location")).toBe("https://apps.apple.com/app/id1");
    expect(res.headers.get("set-cookie")).toBeNull();
  });
});

describe("click limits and fallback URLs", () => {
  test("max_clicks serves exactly that many human clicks, concurrently; bots do not use it up; then max_clicks_url", async () => {
    const link = await createOk({ max_clicks: 5, max_clicks_url: "https://example.com/sold-out" });
    // Bots first: they reach the destination and count for nothing.
    for (let i = 0; i < 3; i++)
      expect(await location(`/${link.short_code}`, { "user-agent": "curl/8.5.0" })).toBe("https://example.com/home");
    const answers = await Promise.all(Array.from({ length: 12 }, () => location(`/${link.short_code}`)));
    expect(answers.filter((a) => a === "https://example.com/home")).toHaveLength(5);
    expect(answers.filter((a) => a === "https://example.com/sold-out")).toHaveLength(7);
    expect((await t.call(`${P}/links/${link.id}`, { key })).body.data.counted_clicks).toBe(5);
    // Once reached, bots go to the fallback too; only served clicks are recorded.
    expect(await location(`/${link.short_code}`, { "user-agent": "curl/8.5.0" })).toBe("https://example.com/sold-out");
    expect(await clicksOf(link.id)).toHaveLength(8);
    // The count lives in Postgres: a fresh cache (another instance, a restart) still refuses.
    await t.runtime.deps.linkCache.invalidate(null, link.short_code);
    expect(await location(`/${link.short_code}`)).toBe("https://example.com/sold-out");
    // A higher limit opens the link again for the difference.
    await patch(link.id, { max_clicks: 6 });
    expect(await location(`/${link.short_code}`)).toBe("https://example.com/home");
    expect(await location(`/${link.short_code}`)).toBe("https://example.com/sold-out");
  });

  test("far from its limit, a link's count is its served human clicks once this instance settles its lease", async () => {
    const link = await createOk({ max_clicks: 100_000 });
    for (let i = 0; i < 30; i++) expect(await location(`/${link.short_code}`)).toBe("https://example.com/home");
    await Promise.all(Array.from({ length: 30 }, () => location(`/${link.short_code}`)));
    // Embedded Postgres leases a block and serves it from memory; a server counts every click.
    await t.runtime.deps.clickLimits.settle();
    expect((await t.call(`${P}/links/${link.id}`, { key })).body.data.counted_clicks).toBe(60);
    expect(await clicksOf(link.id)).toHaveLength(60);
  });

  test("without max_clicks_url a reached limit is a 410 page; link.expired is emitted once with reason max_clicks", async () => {
    await t.call(`${P}/webhooks`, { method: "POST", key, json: { url: "http://127.0.0.1:9/in", events: ["link.expired"] } });
    const link = await createOk({ max_clicks: 1 });
    expect((await visit(`/${link.short_code}`)).status).toBe(302);
    const gone = await visit(`/${link.short_code}`);
    expect(gone.status).toBe(410);
    expect(await gone.text()).toContain("click limit");
    const deliveries = async () =>
      t.runtime.deps.pg.query<{ payload: any }>(
        sql`select payload from webhook_deliveries where account_id = ${accountId} and event_type = 'link.expired' and payload->'data'->>'id' = ${link.id}`,
      );
    let rows = await deliveries();
    for (let i = 0; i < 100 && rows.length === 0; i++) {
      await Bun.sleep(20);
      rows = await deliveries();
    } // the redirect announces it after answering
    expect(rows).toHaveLength(1);
    expect(rows[0].payload.data).toMatchObject({
      id: link.id,
      reason: "max_clicks",
      max_clicks: 1,
      counted_clicks: 1,
      max_clicks_url: null,
    });
    const { announceReachedLimits } = await import("../../server/links/click-limit");
    expect(await announceReachedLimits(t.runtime.deps.pg, t.config.baseUrl)).toBe(0);
    expect(await deliveries()).toHaveLength(1);
  });

  test("expired_url replaces the 410 page after expires_at; without it, 410", async () => {
    const link = await createOk({ expires_at: new Date(Date.now() + 60_000).toISOString(), expired_url: "https://example.com/ended" });
    const plain = await createOk({ expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect(await location(`/${link.short_code}`)).toBe("https://example.com/home");
    await t.runtime.deps.pg.query(sql`update links set expires_at = now() - interval '1 second' where id in (${link.id}, ${plain.id})`);
    await t.runtime.deps.linkCache.invalidate(null, link.short_code);
    await t.runtime.deps.linkCache.invalidate(null, plain.short_code);
    expect(await location(`/${link.short_code}`)).toBe("https://example.com/ended");
    expect((await visit(`/${plain.short_code}`)).status).toBe(410);
    expect(await clicksOf(link.id)).toHaveLength(1);
  });
});

describe("QR marker", () => {
  test("qr=1 is stripped from the destination and the click is recorded as a scan", async () => {
    const link = await createOk({ url: "https://example.com/menu" });
    expect(await location(`/${link.short_code}?qr=1`)).toBe("https://example.com/menu");
    expect(await location(`/${link.short_code}?table=4&qr=1`)).toBe("https://example.com/menu?table=4");
    expect(await location(`/${link.short_code}?qr=2`)).toBe("https://example.com/menu?qr=2");
    expect(await location(`/${link.short_code}`)).toBe("https://example.com/menu");
    const clicks = await clicksOf(link.id);
    expect(clicks.map((c) => c.source)).toEqual(["qr", "qr", "link", "link"]);
    expect(clicks.map((c) => c.query)).toEqual(["", "table=4", "qr=2", ""]);
  });
});
