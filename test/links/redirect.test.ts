import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, listen, type TestApp } from "../helpers/app";

let t: TestApp;
let key: string;
let server: { url: string; stop(): Promise<void> };
const P = "/public-api/v1";
const TXT: Record<string, string[][]> = {};

beforeAll(async () => {
  // Domain verification asks an injected resolver, so the test can answer the TXT lookup.
  t = await createTestApp(
    {},
    {},
    {
      resolveTxt: async (name) => {
        if (!TXT[name]) throw new Error("ENOTFOUND");
        return TXT[name];
      },
    },
  );
  ({ key } = await t.createAccount({ tier: "scale" }));
  server = listen(t);
});
afterAll(async () => {
  await server.stop();
  await t.close();
});

const create = async (json: Record<string, unknown>) => {
  const res = await t.call(`${P}/links`, { method: "POST", key, json: { title: "T", description: "D", ...json } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data;
};
const BROWSER = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15";
const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { redirect: "manual", headers: { "user-agent": BROWSER, ...headers } });
const clickCount = async (linkId: string) => {
  await t.flush();
  const [row] = await t.runtime.deps.ch.query<{ c: string }>(
    `SELECT count() c FROM ${t.runtime.deps.ch.table("clicks")} WHERE link_id = {id:UUID}`,
    { id: linkId },
  );
  return Number(row.c);
};

describe("GET /{short_code}", () => {
  test("302 with UTM and request query merged (request wins), and the cache headers", async () => {
    const link = await create({ url: "https://example.com/p?keep=1&utm_source=orig", utm_source: "news", utm_medium: "email" });
    const res = await get(`/${link.short_code}?utm_medium=override&x=9`);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.origin + location.pathname).toBe("https://example.com/p");
    expect(Object.fromEntries(location.searchParams)).toEqual({ keep: "1", utm_source: "news", utm_medium: "override", x: "9" });
    expect(res.headers.get("cache-control")).toBe("private, max-age=0");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer-when-downgrade");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const head = await fetch(`${server.url}/${link.short_code}`, { method: "HEAD", redirect: "manual" });
    expect(head.status).toBe(302);
  });

  test("every served redirect is recorded as a click with its request facts", async () => {
    const link = await create({ url: "https://example.com/clicks" });
    for (let i = 0; i < 3; i++)
      expect(
        (
          await get(`/${link.short_code}`, {
            referer: "https://news.ycombinator.com/item?id=1",
            "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120",
          })
        ).status,
      ).toBe(302);
    expect(await clickCount(link.id)).toBe(3);
    const [row] = await t.runtime.deps.ch.query<{ referrer: string; query: string }>(
      `SELECT referrer, query FROM ${t.runtime.deps.ch.table("clicks")} WHERE link_id = {id:UUID} LIMIT 1`,
      { id: link.id },
    );
    expect(row.referrer).toBe("news.ycombinator.com");
  });

  test("track_conversions appends svc_ref=<link_id>.<click_id>, and the click id is the recorded click", async () => {
    const link = await create({ url: "https://shop.example/landing", track_conversions: true });
    for (const round of [1, 2]) {
      // The first request loads the link into the cache; the second is answered by the fast path.
      const res = await get(`/${link.short_code}`);
      const location = new URL(res.headers.get("location")!);
      const [linkId, clickId] = location.searchParams.get("svc_ref")!.split(".");
      expect(linkId).toBe(link.id);
      if (round === 2) expect(res.headers.get("x-request-id")).toBe(clickId);
      await t.flush();
      const rows = await t.runtime.deps.ch.query(
        `SELECT 1 FROM ${t.runtime.deps.ch.table("clicks")} WHERE click_id = {c:UUID} AND link_id = {l:UUID}`,
        { c: clickId, l: link.id },
      );
      expect(rows).toHaveLength(1);
    }
  });

  test("unknown, inactive and deleted links are 404 pages; expired links are 410", async () => {
    expect((await get("/doesnotexist")).status).toBe(404);
    const inactive = await create({ url: "https://example.com/i" });
    await t.call(`${P}/links/${inactive.id}`, { method: "PATCH", key, json: { is_active: false } });
    const r404 = await get(`/${inactive.short_code}`);
    expect(r404.status).toBe(404);
    expect(r404.headers.get("content-type")).toContain("text/html");
    await t.call(`${P}/links/${inactive.id}`, { method: "PATCH", key, json: { is_active: true } });
    expect((await get(`/${inactive.short_code}`)).status).toBe(302); // the cache was invalidated
    await t.call(`${P}/links/${inactive.id}`, { method: "DELETE", key });
    expect((await get(`/${inactive.short_code}`)).status).toBe(404);

    const expiring = await create({ url: "https://example.com/e", expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect((await get(`/${expiring.short_code}`)).status).toBe(302);
    await t.runtime.deps.pg.query(sql`update links set expires_at = now() - interval '1 second' where id = ${expiring.id}`);
    await t.runtime.deps.linkCache.invalidate(null, expiring.short_code);
    const gone = await get(`/${expiring.short_code}`);
    expect(gone.status).toBe(410);
    expect(await gone.text()).toContain("expired");
  });

  test("a code created after a miss resolves at once (the negative cache is invalidated)", async () => {
    const alias = `later-${Date.now()}`;
    expect((await get(`/${alias}`)).status).toBe(404);
    await create({ url: "https://example.com/later", custom_alias: alias });
    expect((await get(`/${alias}`)).status).toBe(302);
  });

  test("password-protected links show a form, refuse a wrong password and redirect on the right one", async () => {
    const link = await create({ url: "https://example.com/secret", is_password_protected: true, password: "open sesame" });
    const form = await get(`/${link.short_code}`);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('type="password"');
    const post = (password: string) =>
      fetch(`${server.url}/${link.short_code}`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ password }),
      });
    const wrong = await post("nope");
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("Wrong password");
    const right = await post("open sesame");
    expect(right.status).toBe(302);
    expect(right.headers.get("location")).toBe("https://example.com/secret");
  });

  test("password attempts are rate-limited per client address", async () => {
    const link = await create({ url: "https://example.com/locked", is_password_protected: true, password: "pw" });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${server.url}/${link.short_code}`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "password=bad",
      });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
  });

  test("curl gets the redirect, not a preview page", async () => {
    const link = await create({ url: "https://example.com/curl" });
    expect((await get(`/${link.short_code}`, { "user-agent": "curl/8.5.0" })).status).toBe(302);
  });

  test.each([
    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "Twitterbot/1.0",
    "facebookexternalhit/1.1",
    "LinkedInBot/1.0",
    "Mozilla/5.0 (compatible; Discordbot/2.0)",
    "WhatsApp/2.23",
  ])("social preview crawler %s gets Open Graph tags instead of a redirect", async (ua) => {
    const link = await create({
      url: "https://example.com/og",
      title: "Preview title",
      description: "Preview description",
      og_image: "https://cdn.example/i.png",
    });
    const res = await get(`/${link.short_code}`, { "user-agent": ua });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<meta property="og:title" content="Preview title">');
    expect(html).toContain('<meta property="og:image" content="https://cdn.example/i.png">');
    expect(html).toContain('<meta name="twitter:card" content="summary_large_image">');
  });

  test("a crawler sees nothing of a password-protected link's destination: no URL, title, description or image", async () => {
    const link = await create({
      url: "https://intranet.example/q3-plan",
      title: "Q3 plan - internal",
      description: "Confidential",
      og_image: "https://intranet.example/chart.png",
      is_password_protected: true,
      password: "pw",
    });
    const res = await get(`/${link.short_code}`, { "user-agent": "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)" });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<meta property="og:title" content="Password-protected link">');
    for (const secret of ["intranet.example", "Q3 plan", "Confidential", "chart.png"]) expect(html).not.toContain(secret);
  });
});

describe("custom domains", () => {
  test("verify through TXT, then links on the domain resolve by Host, and only there", async () => {
    const created = await t.call(`${P}/domains`, { method: "POST", key, json: { name: "Go.Example.COM" } });
    expect(created.status).toBe(201);
    const domain = created.body.data;
    expect(domain).toMatchObject({
      name: "go.example.com",
      verified: false,
      verification: { type: "TXT", name: "_svc-verify.go.example.com" },
    });

    const unverified = await t.call(`${P}/links`, {
      method: "POST",
      key,
      json: { url: "https://example.com", title: "t", description: "d", domain_id: domain.id },
    });
    expect(unverified.status).toBe(400);
    expect(unverified.body.error.details.fields[0].field).toBe("body.domain_id");

    const notYet = await t.call(`${P}/domains/${domain.id}/verify`, { method: "POST", key });
    expect(notYet.body.data.verified).toBe(false);
    TXT["_svc-verify.go.example.com"] = [[domain.verification.value]];
    const verified = await t.call(`${P}/domains/${domain.id}/verify`, { method: "POST", key });
    expect(verified.body.data.verified).toBe(true);

    const link = await create({ url: "https://example.com/custom", domain_id: domain.id, custom_alias: "promo" });
    expect(link.short_url).toBe("https://go.example.com/promo");
    expect((await get("/promo", { host: "Go.Example.com" })).status).toBe(302);
    expect((await get("/promo")).status).toBe(404); // not on the default domain
    await t.flush();
    const clicks = await t.runtime.deps.ch.query<{ domain: string }>(
      `SELECT domain FROM ${t.runtime.deps.ch.table("clicks")} WHERE link_id = {id:UUID}`,
      { id: link.id },
    );
    expect(clicks.map((c) => c.domain)).toEqual(["go.example.com"]);

    const other = await t.createAccount();
    expect((await t.call(`${P}/domains/${domain.id}`, { key: other.key })).status).toBe(404);
    expect((await t.call(`${P}/domains`, { method: "POST", key: other.key, json: { name: "go.example.com" } })).status).toBe(409);
    expect((await t.call(`${P}/domains`, { method: "POST", key, json: { name: "not a domain" } })).status).toBe(400);
    expect((await t.call(`${P}/domains/${domain.id}`, { method: "DELETE", key })).status).toBe(409); // links still use it
  });

  test("an unverified name claimed by one account blocks nobody; verifying makes it one account's", async () => {
    const squatter = await t.createAccount();
    const claimed = (await t.call(`${P}/domains`, { method: "POST", key: squatter.key, json: { name: "owned.example.com" } })).body.data;
    const owner = await t.createAccount();
    const added = await t.call(`${P}/domains`, { method: "POST", key: owner.key, json: { name: "owned.example.com" } });
    expect(added.status).toBe(201);
    expect((await t.call(`${P}/domains`, { method: "POST", key: owner.key, json: { name: "owned.example.com" } })).status).toBe(409); // twice in one account
    // The owner publishes their token; the squatter's token is not in DNS.
    TXT["_svc-verify.owned.example.com"] = [[added.body.data.verification.value]];
    expect((await t.call(`${P}/domains/${claimed.id}/verify`, { method: "POST", key: squatter.key })).body.data.verified).toBe(false);
    expect((await t.call(`${P}/domains/${added.body.data.id}/verify`, { method: "POST", key: owner.key })).body.data.verified).toBe(true);
    const late = await t.createAccount();
    expect((await t.call(`${P}/domains`, { method: "POST", key: late.key, json: { name: "owned.example.com" } })).status).toBe(409);
    // Even with the owner's token copied into the squatter's DNS answer, the name stays the owner's.
    TXT["_svc-verify.owned.example.com"] = [[added.body.data.verification.value], [claimed.verification.value]];
    expect((await t.call(`${P}/domains/${claimed.id}/verify`, { method: "POST", key: squatter.key })).status).toBe(409);
  });

  test("PATCH domain_id moves a link between its domain and the default one at once; a taken code is 409", async () => {
    const domain = (await t.call(`${P}/domains`, { method: "POST", key, json: { name: "move.example.com" } })).body.data;
    TXT["_svc-verify.move.example.com"] = [[domain.verification.value]];
    expect((await t.call(`${P}/domains/${domain.id}/verify`, { method: "POST", key })).body.data.verified).toBe(true);
    const link = await create({ url: "https://example.com/moving", custom_alias: "moving" });
    expect((await get("/moving")).status).toBe(302); // cached on the default domain

    const moved = await t.call(`${P}/links/${link.id}`, { method: "PATCH", key, json: { domain_id: domain.id } });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ domain_id: domain.id, short_url: "https://move.example.com/moving" });
    expect((await get("/moving")).status).toBe(404);
    expect((await get("/moving", { host: "move.example.com" })).status).toBe(302);

    // Another link already holds the code on the default domain: moving back is refused, nothing changes.
    await create({ url: "https://example.com/holder", custom_alias: "moving" });
    const taken = await t.call(`${P}/links/${link.id}`, { method: "PATCH", key, json: { domain_id: null } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe("ALIAS_TAKEN");
    expect((await get("/moving", { host: "move.example.com" })).status).toBe(302);

    const other = await t.createAccount();
    const foreign = (await t.call(`${P}/domains`, { method: "POST", key: other.key, json: { name: "theirs.example.com" } })).body.data;
    const refused = await t.call(`${P}/links/${link.id}`, { method: "PATCH", key, json: { domain_id: foreign.id } });
    expect(refused.status).toBe(404); // as on create: another account's domain does not exist for this one
  });
});
