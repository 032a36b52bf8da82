import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";
import { domains } from "../../server/storage/postgres/schema";

let t: TestApp;
let key: string;
let otherKey: string;
let site: ReturnType<typeof Bun.serve>;
const P = "/public-api/v1";

beforeAll(async () => {
  t = await createTestApp({}, { WEBHOOK_ALLOW_INSECURE: "true" });
  ({ key } = await t.createAccount({ tier: "scale" }));
  ({ key: otherKey } = await t.createAccount({ tier: "scale" }));
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/slow")
        return Bun.sleep(5_000).then(() => new Response("<title>late</title>", { headers: { "content-type": "text/html" } }));
      if (path === "/hop") return Response.redirect("/page", 302);
      return new Response(
        `<html><head><title>Plain &amp; title</title>
        <meta property="og:title" content="OG Title"><meta name="description" content="A description">
        <meta property="og:image" content="/img.png"></head><body>x</body></html>`,
        { headers: { "content-type": "text/html; charset=utf-8" } },
      );
    },
  });
});
afterAll(async () => {
  site.stop(true);
  await t.close();
});

const create = (json: unknown, k = key) => t.call(`${P}/links`, { method: "POST", key: k, json });

describe("POST /links", () => {
  test("creates a link with a generated 7-character base62 code and the Link fields", async () => {
    const res = await create({ url: "https://example.com/x", title: "X", description: "Y", tags: ["a", "b"] });
    expect(res.status).toBe(201);
    const link = res.body.data;
    expect(link.short_code).toMatch(/^[0-9A-Za-z]{7}$/);
    expect(link.short_url).toBe(`http://127.0.0.1:3000/${link.short_code}`);
    expect(link).toMatchObject({ original_url: "https://example.com/x", title: "X", description: "Y", tags: ["a", "b"], is_active: true });
    expect(Date.parse(link.created_at)).toBeGreaterThan(0);
    const got = await t.call(`${P}/links/${link.id}`, { key });
    expect(got.body.data).toEqual(link);
  });

  test("extracts title, description and image from the destination when omitted, following a redirect", async () => {
    const res = await create({ url: `http://127.0.0.1:${site.port}/hop` });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      title: "OG Title",
      description: "A description",
      og_image: `http://127.0.0.1:${site.port}/img.png`,
    });
  });

  test("a slow destination never fails the create (2 s budget)", async () => {
    const started = Date.now();
    const res = await create({ url: `http://127.0.0.1:${site.port}/slow` });
    expect(res.status).toBe(201);
    expect(res.body.data.title).toBe("");
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  test.each([
    [{ url: "ftp://example.com" }, "url"],
    [{ url: "javascript:alert(1)" }, "url"],
    [{ url: "https://user:pw@example.com" }, "url"],
    [{ url: "https://example.com/" + "a".repeat(2100) }, "url"],
    [{ url: "not a url" }, "url"],
    [{ url: "https://example.com", expires_at: "2001-01-01T00:00:00Z" }, "expires_at"],
    [{ url: "https://example.com", expires_at: "2031-02-30T00:00:00" }, "expires_at"],
    [{ url: "https://example.com", expires_at: "next tuesday" }, "expires_at"],
    [{ url: "https://example.com", custom_alias: "ab" }, "custom_alias"],
    [{ url: "https://example.com", custom_alias: "has space" }, "custom_alias"],
    [{ url: "https://example.com", custom_alias: "admin" }, "custom_alias"],
    [{ url: "https://example.com", custom_alias: "public-api" }, "custom_alias"],
    [{ url: "https://example.com", is_password_protected: true }, "password"],
  ])("rejects %j naming %s, and stores nothing", async (body, field) => {
    const before = (await t.call(`${P}/links?per_page=1`, { key })).body.meta.total;
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(JSON.stringify(res.body.error.details.fields)).toContain(field);
    expect((await t.call(`${P}/links?per_page=1`, { key })).body.meta.total).toBe(before);
  });

  test("ISO 8601 times without an offset are UTC, as in journey ingest; a date alone is its midnight UTC", async () => {
    for (const [expires_at, stored] of [
      ["2031-01-01T12:30:00", "2031-01-01T12:30:00.000Z"],
      ["2031-01-01T12:30", "2031-01-01T12:30:00.000Z"],
      ["2031-01-01", "2031-01-01T00:00:00.000Z"],
      ["2031-01-01T13:30:00+01:00", "2031-01-01T12:30:00.000Z"],
    ]) {
      const res = await create({ url: "https://example.com/utc", title: "t", description: "d", expires_at });
      expect({ expires_at, status: res.status, stored: res.body.data?.expires_at }).toEqual({ expires_at, status: 201, stored });
    }
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19); // no offset
    const recent = await t.call(`${P}/links?per_page=1&created_after=${hourAgo}`, { key });
    expect(recent.status).toBe(200);
    expect(recent.body.meta.total).toBeGreaterThan(0);
    const future = await t.call(`${P}/links?per_page=1&created_after=${new Date(Date.now() + 3_600_000).toISOString().slice(0, 19)}`, {
      key,
    });
    expect(future.body.meta.total).toBe(0);
    const bad = await t.call(`${P}/links?created_after=2026-02-30T00:00:00`, { key });
    expect({ status: bad.status, field: bad.body.error.details.fields[0].field }).toEqual({ status: 400, field: "query.created_after" });
  });

  test("custom aliases: 409 when taken, tier gate below Basic", async () => {
    const alias = `my-alias-${Date.now()}`;
    expect((await create({ url: "https://example.com", custom_alias: alias, title: "t", description: "d" })).status).toBe(201);
    const again = await create({ url: "https://example.com", custom_alias: alias, title: "t", description: "d" });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("ALIAS_TAKEN");
    const free = await t.createAccount({ tier: "free" });
    const gated = await create({ url: "https://example.com", custom_alias: "free-alias" }, free.key);
    expect(gated.status).toBe(403);
    expect(gated.body.error).toMatchObject({ code: "TIER_UPGRADE_REQUIRED", details: { required_tier: "basic" } });
  });

  test("passwords are hashed with Bun.password; a password alone turns protection on", async () => {
    const on = await create({ url: "https://example.com", title: "t", description: "d", is_password_protected: true, password: "s3cret" });
    expect(on.body.data.is_password_protected).toBe(true);
    const [row] = await t.runtime.deps.pg.query<{ password_hash: string }>(
      sql`select password_hash from links where id = ${on.body.data.id}`,
    );
    expect(row.password_hash).not.toContain("s3cret");
    expect(await Bun.password.verify("s3cret", row.password_hash)).toBe(true);
    // A password without is_password_protected protects the link (it used to be ignored and the link stayed open).
    const alone = await create({ url: "https://example.com", title: "t", description: "d", password: "alone" });
    expect(alone.status).toBe(201);
    expect(alone.body.data.is_password_protected).toBe(true);
    const gate = await t.request(`/${alone.body.data.short_code}`, { redirect: "manual" });
    expect(gate.status).toBe(200);
    expect(await gate.text()).toContain('type="password"');
    const contradiction = await create({ url: "https://example.com", password: "x", is_password_protected: false });
    expect({ status: contradiction.status, field: contradiction.body.error.details.fields[0].field }).toEqual({
      status: 400,
      field: "body.password",
    });
    const open = await create({ url: "https://example.com", title: "t", description: "d" });
    const patched = await t.call(`${P}/links/${open.body.data.id}`, { method: "PATCH", key, json: { password: "later" } });
    expect(patched.body.data.is_password_protected).toBe(true);
  });

  test("campaigns need Growth and must belong to the account", async () => {
    const basic = await t.createAccount({ tier: "basic" });
    const gated = await create({ url: "https://example.com", title: "t", description: "d", campaign_id: crypto.randomUUID() }, basic.key);
    expect(gated.status).toBe(403);
    const camp = await t.call(`${P}/campaigns`, { method: "POST", key: otherKey, json: { name: "other's" } });
    const foreign = await create({ url: "https://example.com", title: "t", description: "d", campaign_id: camp.body.data.id });
    expect(foreign.status).toBe(404);
    const mine = await t.call(`${P}/campaigns`, { method: "POST", key, json: { name: "Launch", description: "Q4" } });
    const ok = await create({ url: "https://example.com", title: "t", description: "d", campaign_id: mine.body.data.id });
    expect(ok.body.data.campaign_id).toBe(mine.body.data.id);
  });
});

describe("GET/PATCH/DELETE /links/{id}", () => {
  test("PATCH url changes the destination: the code and clicks stay, the history keeps the old one", async () => {
    const {
      body: { data: link },
    } = await create({ url: "https://example.com/typo", title: "t", description: "d" });
    const first = await t.request(`/${link.short_code}`, { redirect: "manual" });
    expect(first.headers.get("location")).toBe("https://example.com/typo");
    const fixed = await t.call(`${P}/links/${link.id}`, { method: "PATCH", key, json: { url: "https://example.com/fixed" } });
    expect(fixed.status).toBe(200);
    expect(fixed.body.data).toMatchObject({ id: link.id, short_code: link.short_code, original_url: "https://example.com/fixed" });
    // The redirect follows at once (the link cache is invalidated).
    expect((await t.request(`/${link.short_code}`, { redirect: "manual" })).headers.get("location")).toBe("https://example.com/fixed");
    await t.call(`${P}/links/${link.id}`, { method: "PATCH", key, json: { original_url: "https://example.com/final" } });
    // The same URL again changes nothing and adds no history.
    await t.call(`${P}/links/${link.id}`, { method: "PATCH", key, json: { url: "https://example.com/final" } });
    const history = await t.call(`${P}/links/${link.id}/destinations`, { key });
    expect(history.status).toBe(200);
    expect(history.body.data.map((d: { url: string; until: string | null }) => [d.url, d.until === null])).toEqual([
      ["https://example.com/final", true],
      ["https://example.com/fixed", false],
      ["https://example.com/typo", false],
    ]);
    expect(history.body.data[2].from).toBe(link.created_at);
    expect(history.body.data[1].until).toBe(history.body.data[0].from);
    expect((await t.call(`${P}/links/${link.id}/destinations`, { key: otherKey })).status).toBe(404);
    // The clicks stay with the link: its stats are one link's, whatever its destination.
    await t.flush();
    expect((await t.call(`${P}/links/${link.id}/stats`, { key })).body.data.total_clicks).toBe(2);
  });

  test("two PATCHes of url at once: the history keeps both, each change naming the URL it replaced", async () => {
    const {
      body: { data: link },
    } = await create({ url: "https://example.com/start", title: "t", description: "d" });
    const urls = ["https://example.com/one", "https://example.com/two"];
    const answers = await Promise.all(urls.map((url) => t.call(`${P}/links/${link.id}`, { method: "PATCH", key, json: { url } })));
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const now = (await t.call(`${P}/links/${link.id}`, { key })).body.data.original_url;
    const history = (await t.call(`${P}/links/${link.id}/destinations`, { key })).body.data.map((d: { url: string }) => d.url);
    // The last change wins; the other destination was live between the two changes and stays in the history.
    expect(history).toEqual([now, urls.find((u) => u !== now), "https://example.com/start"]);
  });

  test("PATCH applies the documented rules and returns the updated link", async () => {
    const {
      body: { data: link },
    } = await create({
      url: "https://example.com/p",
      title: "t",
      description: "d",
      tags: ["x"],
      utm_source: "a",
      utm_medium: "b",
      expires_at: new Date(Date.now() + 86400e3).toISOString(),
      is_password_protected: true,
      password: "pw",
    });
    for (const og_image of ["javascript:alert(1)", "not a url"]) {
      const bad = await t.call(`${P}/links/${link.id}`, { method: "PATCH", key, json: { og_image } });
      expect({ status: bad.status, field: bad.body.error.details.fields[0].field }).toEqual({ status: 400, field: "body.og_image" });
    }
    for (const [json, field] of [
      [{ url: "javascript:alert(1)" }, "body.url"],
      [{ original_url: 42 }, "body.original_url"],
      [{ url: "https://a.example", original_url: "https://b.example" }, "body.original_url"],
    ] as const) {
      const bad = await t.call(`${P}/links/${link.id}`, { method: "PATCH", key, json });
      expect({ status: bad.status, field: bad.body.error.details.fields[0].field }).toEqual({ status: 400, field });
    }
    const res = await t.call(`${P}/links/${link.id}`, {
      method: "PATCH",
      key,
      json: {
        title: "new",
        tags: ["y", "z"],
        utm_source: "",
        utm_campaign: "c",
        expires_at: null,
        is_password_protected: false,
        is_active: false,
        custom_alias: `renamed-${Date.now()}`,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      title: "new",
      description: "d",
      tags: ["y", "z"],
      utm_source: null,
      utm_medium: "b",
      utm_campaign: "c",
      expires_at: null,
      is_password_protected: false,
      is_active: false,
    });
    expect(res.body.data.short_code).toStartWith("renamed-");
    expect(res.body.data.original_url).toBe("https://example.com/p");
  });

  test("another account's link is 404 for every operation", async () => {
    const {
      body: { data: link },
    } = await create({ url: "https://example.com", title: "t", description: "d" });
    for (const [method, path] of [
      ["GET", ""],
      ["PATCH", ""],
      ["DELETE", ""],
      ["POST", "/restore"],
      ["GET", "/stats"],
    ] as const) {
      const res = await t.call(`${P}/links/${link.id}${path}`, {
        method,
        key: otherKey,
        json: method === "PATCH" ? { title: "x" } : undefined,
      });
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
  });

  test("DELETE soft-deletes; restore works within 7 days and answers 410 after", async () => {
    const {
      body: { data: link },
    } = await create({ url: "https://example.com", title: "t", description: "d" });
    const del = await t.call(`${P}/links/${link.id}`, { method: "DELETE", key });
    expect(del.status).toBe(200);
    expect(typeof del.body.data.message).toBe("string");
    expect((await t.call(`${P}/links/${link.id}`, { key })).status).toBe(404);
    expect((await t.request(`/${link.short_code}`)).status).toBe(404);
    const restored = await t.call(`${P}/links/${link.id}/restore`, { method: "POST", key });
    expect(restored.status).toBe(200);
    expect((await t.request(`/${link.short_code}`)).status).toBe(302);

    await t.call(`${P}/links/${link.id}`, { method: "DELETE", key });
    await t.runtime.deps.pg.query(sql`update links set deleted_at = now() - interval '8 days' where id = ${link.id}`);
    const late = await t.call(`${P}/links/${link.id}/restore`, { method: "POST", key });
    expect(late.status).toBe(410);
    expect(late.body.error.code).toBe("GONE");
    const { purgeDeletedLinks } = await import("../../server/links/service");
    expect(await purgeDeletedLinks(t.runtime.deps.pg)).toBeGreaterThanOrEqual(1);
    expect((await t.runtime.deps.pg.query(sql`select 1 from links where id = ${link.id}`)).length).toBe(0);
    // Still 410 once purged (a tombstone remembers it), and still 404 for another account.
    expect((await t.call(`${P}/links/${link.id}/restore`, { method: "POST", key })).status).toBe(410);
    const other = await t.createAccount();
    expect((await t.call(`${P}/links/${link.id}/restore`, { method: "POST", key: other.key })).status).toBe(404);
    expect((await t.call(`${P}/links/${crypto.randomUUID()}/restore`, { method: "POST", key })).status).toBe(404);
    // Tombstones are forgotten after 90 days.
    await t.runtime.deps.pg.query(sql`update purged_links set purged_at = now() - interval '91 days' where id = ${link.id}`);
    await purgeDeletedLinks(t.runtime.deps.pg);
    expect((await t.call(`${P}/links/${link.id}/restore`, { method: "POST", key })).status).toBe(404);
  });
});

describe("GET /links", () => {
  test("filters, searches, sorts and paginates", async () => {
    const acc = await t.createAccount({ tier: "scale" });
    const mk = (json: Record<string, unknown>) => create({ title: "", description: "", ...json }, acc.key);
    await mk({ url: "https://alpha.example/one", title: "Alpha", tags: ["red"] });
    await mk({ url: "https://beta.example/two", title: "Beta", tags: ["blue"], is_password_protected: true, password: "x" });
    const gamma = await mk({ url: "https://gamma.example/three", title: "Gamma", tags: ["red", "blue"] });
    await t.call(`${P}/links/${gamma.body.data.id}`, { method: "PATCH", key: acc.key, json: { is_active: false } });
    const list = (q: string) => t.call(`${P}/links?${q}`, { key: acc.key }).then((r) => r.body);

    const all = await list("per_page=2&sort_by=title&sort_order=asc");
    expect(all.data.map((l: any) => l.title)).toEqual(["Alpha", "Beta"]);
    expect(all.meta).toMatchObject({ page: 1, per_page: 2, total: 3, total_pages: 2 });
    expect((await list("per_page=2&page=2&sort_by=title&sort_order=asc")).data.map((l: any) => l.title)).toEqual(["Gamma"]);
    expect((await list("search=beta")).data.map((l: any) => l.title)).toEqual(["Beta"]);
    expect((await list("search=three")).data.map((l: any) => l.title)).toEqual(["Gamma"]);
    expect((await list("tags=red&sort_by=title&sort_order=asc")).data.map((l: any) => l.title)).toEqual(["Alpha", "Gamma"]);
    expect((await list("is_active=false")).data.map((l: any) => l.title)).toEqual(["Gamma"]);
    expect((await list("has_password=true")).data.map((l: any) => l.title)).toEqual(["Beta"]);
    expect((await list(`created_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).meta.total).toBe(0);
    const bad = await t.call(`${P}/links?sort_by=clicks`, { key: acc.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0].field).toContain("sort_by");
    for (const [q, field] of [
      ["per_page=251", "query.per_page"],
      ["per_page=0", "query.per_page"],
      ["per_page=2.5", "query.per_page"],
      ["page=0", "query.page"],
    ]) {
      const res = await t.call(`${P}/links?${q}`, { key: acc.key });
      expect({ q, status: res.status, field: res.body.error.details.fields[0].field }).toEqual({ q, status: 400, field });
      expect(res.body.error.message).toStartWith(`${field}: must be an integer from`);
    }
  });

  test("domain (a name) lists the links on the account's domain of that name, and none for a name the account does not have", async () => {
    const acc = await t.createAccount({ tier: "scale" });
    const other = await t.createAccount({ tier: "scale" });
    const host = `go-${crypto.randomUUID().slice(0, 8)}.example`;
    const [domain] = await t.runtime.deps.pg.db
      .insert(domains)
      .values({ accountId: acc.accountId, name: host, verificationToken: "x", verifiedAt: new Date() })
      .returning();
    const onDomain = await create({ url: "https://example.com/on", title: "On", description: "", domain_id: domain.id }, acc.key);
    await create({ url: "https://example.com/off", title: "Off", description: "" }, acc.key);
    const list = async (q: string, k = acc.key) => (await t.call(`${P}/links?${q}`, { key: k })).body;
    for (const q of [`domain=${host.toUpperCase()}`, `domain=${host}&sort_by=clicks_7d`]) {
      const page = await list(q);
      expect(page.data.map((l: any) => l.id)).toEqual([onDomain.body.data.id]);
      expect(page.meta.total).toBe(1);
    }
    expect((await list("domain=unknown.example")).meta.total).toBe(0);
    expect((await list(`domain=${host}`, other.key)).meta.total).toBe(0);
  });

  test("meta.total stays exact through create, bulk, delete, restore, purge and direct SQL, per account", async () => {
    const a = await t.createAccount({ tier: "scale" });
    const b = await t.createAccount({ tier: "scale" });
    const totalOf = async (acc: { key: string }, q = "") => (await t.call(`${P}/links?per_page=1${q}`, { key: acc.key })).body.meta.total;
    const counted = async (acc: { accountId: string }) =>
      Number(
        (
          await t.runtime.deps.pg.query<{ n: string }>(
            sql`select count(*) as n from links where account_id = ${acc.accountId} and deleted_at is null`,
          )
        )[0].n,
      );
    const expectTotal = async (acc: { key: string; accountId: string }, n: number) => {
      expect(await totalOf(acc)).toBe(n);
      expect(await counted(acc)).toBe(n);
    };

    await expectTotal(a, 0);
    const first = (await create({ url: "https://example.com/c1", title: "", description: "" }, a.key)).body.data;
    await create({ url: "https://example.com/c2", title: "", description: "" }, a.key);
    const bulk = await t.call(`${P}/links/bulk`, {
      method: "POST",
      key: a.key,
      json: [1, 2, 3, 4, 5].map((i) => ({ url: `https://example.com/b${i}`, title: "", description: "" })),
    });
    expect(bulk.status).toBe(201);
    await create({ url: "https://example.com/other", title: "", description: "" }, b.key);
    await expectTotal(a, 7);
    await expectTotal(b, 1);

    await t.call(`${P}/links/${first.id}`, { method: "DELETE", key: a.key });
    await expectTotal(a, 6);
    await t.call(`${P}/links/${first.id}`, { method: "DELETE", key: a.key }); // already deleted: 404, no change
    await expectTotal(a, 6);
    await t.call(`${P}/links/${first.id}/restore`, { method: "POST", key: a.key });
    await t.call(`${P}/links/${first.id}/restore`, { method: "POST", key: a.key }); // live already: no change
    await expectTotal(a, 7);
    await t.call(`${P}/links/${first.id}`, { method: "PATCH", key: a.key, json: { title: "renamed", is_active: false } });
    await expectTotal(a, 7);

    await t.runtime.deps.pg.query(sql`
      insert into links (account_id, short_code, original_url) select ${a.accountId}::uuid, 'tot' || g || ${a.accountId.slice(0, 8)}, 'https://example.com/s' || g
      from generate_series(1, 10) g`);
    await expectTotal(a, 17);
    await t.runtime.deps.pg.query(
      sql`update links set deleted_at = now() - interval '8 days' where account_id = ${a.accountId} and short_code like 'tot%'`,
    );
    await expectTotal(a, 7);
    const { purgeDeletedLinks } = await import("../../server/links/service");
    expect(await purgeDeletedLinks(t.runtime.deps.pg)).toBeGreaterThanOrEqual(10);
    await expectTotal(a, 7);
    await t.runtime.deps.pg.query(sql`delete from links where id = ${first.id}`);
    await expectTotal(a, 6);
    await expectTotal(b, 1);
    // With a filter the total is counted: the same numbers.
    expect(await totalOf(a, "&is_active=true")).toBe(6);
    expect(await totalOf(a, "&search=example.com/b")).toBe(5);

    await t.runtime.deps.pg.query(sql`delete from accounts where id = ${a.accountId}`);
    expect(await t.runtime.deps.pg.query(sql`select 1 from link_counts where account_id = ${a.accountId}`)).toHaveLength(0);
  });

  test("pages of a sort with ties neither repeat nor skip a link, in both directions", async () => {
    const acc = await t.createAccount({ tier: "scale" });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await create({ url: `https://example.com/tie${i}`, title: "Same", description: "" }, acc.key)).body.data.id);
    const sorted = [...ids].sort();
    for (const order of ["asc", "desc"] as const) {
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const res = await t.call(`${P}/links?per_page=2&page=${page}&sort_by=title&sort_order=${order}`, { key: acc.key });
        expect(res.body.meta).toMatchObject({ total: 5, total_pages: 3 });
        seen.push(...res.body.data.map((l: any) => l.id));
      }
      expect(seen).toEqual(order === "asc" ? sorted : [...sorted].reverse());
    }
  });

  test("sort_by=original_url: byte order of the whole URL, also beyond the indexed 600-character prefix", async () => {
    const acc = await t.createAccount({ tier: "scale" });
    const long = "https://example.com/" + "p".repeat(700);
    const urls = [`${long}b`, "https://example.com/a", `${long}a`, "https://example.com/B", "https://example.com/a?x=1"];
    for (const url of urls) expect((await create({ url, title: "", description: "" }, acc.key)).status).toBe(201);
    const expected = [...urls].sort(); // UTF-16 code unit order equals byte order for ASCII
    for (const order of ["asc", "desc"] as const) {
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const res = await t.call(`${P}/links?per_page=2&page=${page}&sort_by=original_url&sort_order=${order}`, { key: acc.key });
        seen.push(...res.body.data.map((l: any) => l.original_url));
      }
      expect(seen).toEqual(order === "asc" ? expected : [...expected].reverse());
    }
  });

  test("search and tag filters stay exact over 100,000 links (timing: bun run bench links)", async () => {
    const acc = await t.createAccount({ tier: "scale" });
    await t.runtime.deps.pg.query(sql`
      insert into links (account_id, short_code, original_url, title, tags, created_at)
      select ${acc.accountId}::uuid, 'bulk' || g, 'https://example.com/' || g, 'Title ' || g, array['t' || (g % 10)], now() - (g || ' seconds')::interval
      from generate_series(1, 100000) g`);
    await t.runtime.deps.pg.query(sql`analyze links`);
    const res = await t.call(`${P}/links?per_page=50&tags=t3&sort_by=created_at`, { key: acc.key });
    expect(res.body.meta.total).toBe(10_000);
    expect(res.body.data).toHaveLength(50);
    expect(res.body.data.every((l: any) => l.tags.includes("t3"))).toBe(true);
    const search = await t.call(`${P}/links?per_page=250&search=${encodeURIComponent("Title 9999")}`, { key: acc.key });
    expect(search.body.meta.total).toBe(11); // 9999 and 99990..99999
    const plan = await t.runtime.deps.pg.query<Record<string, string>>(sql`explain select id from links
      where account_id = ${acc.accountId} and (original_url || ' ' || coalesce(title, '') || ' ' || short_code) ilike '%Title 9999%'`);
    expect(JSON.stringify(plan)).toContain("links_search_idx");
    const plain = await t.call(`${P}/links?per_page=100&page=100`, { key: acc.key });
    expect(plain.body.meta).toMatchObject({ total: 100_000, total_pages: 1000 });
    expect(plain.body.data.map((l: any) => l.short_code)).toEqual(Array.from({ length: 100 }, (_, i) => `bulk${9901 + i}`));
    // A sorted page is read in order from a partial index of live links, not sorted.
    const sorted = JSON.stringify(
      await t.runtime.deps.pg.query(sql`explain select * from links
      where account_id = ${acc.accountId} and deleted_at is null order by title desc, id desc limit 50`),
    );
    expect(sorted).toContain("links_live_title_idx");
    expect(sorted).not.toContain("Sort");
    const byUrl = JSON.stringify(
      await t.runtime.deps.pg.query(sql`explain select * from links
      where account_id = ${acc.accountId} and deleted_at is null order by left(original_url, 600) collate "C", original_url collate "C", id limit 50`),
    );
    expect(byUrl).toContain("links_live_url_idx");
  }, 120_000);
});
