// Console people and sessions against a real runtime: the setup link, sign-in, the session cookie on
// the public API (scopes from the role), cross-site protection, expiry, sign-out and the throttle.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";
import { acceptLink, cookieOf, createOwner, firstOwnerLink, ORIGIN, publicPost, signIn, tokenOf } from "../helpers/console";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const PASSWORD = "correct horse battery";

describe("first start", () => {
  test("embedded, a setup link is printed at start; with a Postgres server nothing is made at start", async () => {
    if (t.runtime.deps.pg.kind === "pglite") expect(t.runtime.setupUrl).toMatch(/\/console\/setup#/);
    else expect(t.runtime.setupUrl).toBeNull();
  });

  test("the setup link makes its opener the owner of the default account, once", async () => {
    const url = await firstOwnerLink(t);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/console\/setup#[A-Za-z0-9_-]{43}$/);
    const preview = await publicPost(t, "/invitation", { token: tokenOf(url) });
    expect(preview.body.data).toMatchObject({ account_name: "default", role: "owner", email: null, is_setup: true });

    const noEmail = await publicPost(t, "/accept-invitation", { token: tokenOf(url), password: PASSWORD });
    expect(noEmail.status).toBe(400);
    expect(noEmail.body.error.details.fields[0].field).toBe("body.email");
    const weak = await publicPost(t, "/accept-invitation", { token: tokenOf(url), password: "short", email: "me@example.com" });
    expect(weak.status).toBe(400);
    expect(weak.body.error.details.fields[0].field).toBe("body.password");

    const res = await publicPost(t, "/accept-invitation", { token: tokenOf(url), password: PASSWORD, email: "Me@Example.com" });
    expect(res.status).toBe(200);
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^svc_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    expect(res.body.data).toMatchObject({ user: { email: "me@example.com" }, account: { name: "default", tier: "scale" }, role: "owner" });
    expect(res.body.data.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The token is stored hashed: the cookie's value is nowhere in the database.
    const token = cookieOf(res.headers).split("=")[1];
    const rows = await t.runtime.deps.pg.query<{ token_hash: string }>(sql`select token_hash from user_sessions`);
    expect(rows.some((r) => r.token_hash === token)).toBe(false);
    expect(rows.some((r) => r.token_hash === new Bun.CryptoHasher("sha256").update(token).digest("hex"))).toBe(true);

    const again = await publicPost(t, "/accept-invitation", { token: tokenOf(url), password: PASSWORD, email: "other@example.com" });
    expect(again.status).toBe(404);
  });
});

describe("the session on the public API", () => {
  test("reads and writes with the cookie; a write needs the CSRF token and our Origin", async () => {
    const { session } = await createOwner(t);
    const list = await session.call("/public-api/v1/links");
    expect(list.status).toBe(200);
    expect(list.headers.get("x-ratelimit-limit")).toBe("250000");

    const created = await session.call("/public-api/v1/links", { method: "POST", json: { url: "https://example.com/a", title: "A" } });
    expect(created.status).toBe(201);

    const noToken = await session.call("/public-api/v1/links", {
      method: "POST",
      json: { url: "https://example.com/b" },
      headers: { "x-csrf-token": "" },
    });
    expect(noToken.status).toBe(403);
    expect(noToken.body.error.code).toBe("CROSS_SITE_REQUEST");
    const wrongToken = await session.call(`/public-api/v1/links/${created.body.data.id}`, {
      method: "DELETE",
      headers: { "x-csrf-token": "x".repeat(43) },
    });
    expect(wrongToken.status).toBe(403);
    const foreign = await session.call(`/public-api/v1/links/${created.body.data.id}`, {
      method: "DELETE",
      headers: { origin: "http://evil.example" },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe("CROSS_SITE_REQUEST");
    const crossSiteRead = await session.call("/public-api/v1/links", { headers: { "sec-fetch-site": "cross-site" } });
    expect(crossSiteRead.status).toBe(403);
    // Nothing changed: the link is still there, and only it.
    const after = await session.call("/public-api/v1/links");
    expect(after.body.data.map((l: any) => l.id)).toEqual([created.body.data.id]);
  });

  test("validation and errors are the API's own", async () => {
    const { session } = await createOwner(t);
    const bad = await session.call("/public-api/v1/links", { method: "POST", json: { url: "ftp://x" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_ERROR");
    expect(bad.body.error.details.fields[0].field).toBe("body.url");
  });

  test("another account's ids answer 404, as with an API key", async () => {
    const a = await createOwner(t);
    const b = await createOwner(t);
    const link = await a.session.call("/public-api/v1/links", { method: "POST", json: { url: "https://example.com/mine" } });
    const id = link.body.data.id;
    expect((await b.session.call(`/public-api/v1/links/${id}`)).status).toBe(404);
    expect((await b.session.call(`/public-api/v1/links/${id}`, { method: "PATCH", json: { title: "x" } })).status).toBe(404);
    expect((await b.session.call(`/public-api/v1/links/${id}`, { method: "DELETE" })).status).toBe(404);
    expect((await b.session.call(`/public-api/v1/journey/links/${id}/summary`)).status).toBe(404);
    const key = await a.session.call("/console/api/keys", { method: "POST", json: { name: "k", scopes: ["links:read"] } });
    expect((await b.session.call(`/console/api/keys/${key.body.data.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await a.session.call(`/public-api/v1/links/${id}`)).status).toBe(200);
  });

  test("an API key cannot use the session-only routes", async () => {
    const { key } = await t.createAccount();
    const res = await t.call("/console/api/keys", { key });
    expect(res.status).toBe(401);
    const mint = await t.call("/console/api/keys", { method: "POST", key, json: { name: "x", scopes: ["links:read"] } });
    expect(mint.status).toBe(401);
  });

  test("without a cookie or key: 401", async () => {
    expect((await t.call("/public-api/v1/links")).status).toBe(401);
    expect((await t.call("/public-api/v1/links", { headers: { cookie: "svc_session=" + "a".repeat(43) } })).status).toBe(401);
  });
});

describe("roles", () => {
  test("a viewer reads but cannot create or delete; a member cannot manage keys or the team", async () => {
    const owner = await createOwner(t);
    const link = await owner.session.call("/public-api/v1/links", { method: "POST", json: { url: "https://example.com/v" } });
    const invite = await owner.session.call("/console/api/team/invitations", {
      method: "POST",
      json: { email: "viewer@example.com", role: "viewer" },
    });
    expect(invite.status).toBe(201);
    expect(invite.body.data.email_sent).toBe(false);
    const viewer = await acceptLink(t, invite.body.data.invitation_url, PASSWORD);
    expect(viewer.data.role).toBe("viewer");
    expect((await viewer.call("/public-api/v1/links")).body.data).toHaveLength(1);
    expect((await viewer.call(`/public-api/v1/links/${link.body.data.id}/stats`)).status).toBe(200);
    const create = await viewer.call("/public-api/v1/links", { method: "POST", json: { url: "https://example.com/no" } });
    expect(create.status).toBe(403);
    expect(create.body.error).toMatchObject({ code: "INSUFFICIENT_PERMISSIONS", details: { required: "links:write" } });
    expect(create.body.error.message).toContain("viewer");
    expect((await viewer.call(`/public-api/v1/links/${link.body.data.id}`, { method: "DELETE" })).status).toBe(403);
    expect((await viewer.call("/console/api/keys")).status).toBe(403);
    expect((await viewer.call("/console/api/team")).status).toBe(200);
    expect(
      (await viewer.call("/console/api/team/invitations", { method: "POST", json: { email: "x@example.com", role: "viewer" } })).status,
    ).toBe(403);
    expect((await owner.session.call("/public-api/v1/links")).body.data).toHaveLength(1);

    // Promoted to member: the next request has the new role's scopes.
    const team = await owner.session.call("/console/api/team");
    const member = team.body.data.members.find((m: any) => m.email === "viewer@example.com");
    expect((await owner.session.call(`/console/api/team/members/${member.id}`, { method: "PATCH", json: { role: "member" } })).status).toBe(
      200,
    );
    expect((await viewer.call("/public-api/v1/links", { method: "POST", json: { url: "https://example.com/yes" } })).status).toBe(201);
    expect((await viewer.call("/console/api/keys")).status).toBe(403);
  });

  test("admins cannot touch owners; the last owner stays; removal ends the member's session and emits events", async () => {
    const owner = await createOwner(t);
    const events: string[] = [];
    const { onEvent } = await import("../../server/webhooks/outbox");
    const off = onEvent((e) => e.accountId === owner.accountId && events.push(e.type));
    const inv = await owner.session.call("/console/api/team/invitations", {
      method: "POST",
      json: { email: "admin@example.com", role: "admin" },
    });
    const admin = await acceptLink(t, inv.body.data.invitation_url, PASSWORD);
    const members = (await owner.session.call("/console/api/team")).body.data.members;
    const ownerRow = members.find((m: any) => m.role === "owner");
    const adminRow = members.find((m: any) => m.role === "admin");
    const demote = await admin.call(`/console/api/team/members/${ownerRow.id}`, { method: "PATCH", json: { role: "viewer" } });
    expect(demote.status).toBe(403);
    expect(
      (await admin.call("/console/api/team/invitations", { method: "POST", json: { email: "o2@example.com", role: "owner" } })).status,
    ).toBe(403);
    const last = await owner.session.call(`/console/api/team/members/${ownerRow.id}`, { method: "PATCH", json: { role: "admin" } });
    expect(last.status).toBe(409);
    const removed = await owner.session.call(`/console/api/team/members/${adminRow.id}`, { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect((await admin.call("/public-api/v1/links")).status).toBe(401);
    await Bun.sleep(0);
    off();
    expect(events).toEqual(["team.member_added", "team.member_removed"]);
  });
});

describe("sessions", () => {
  test("sign-in, sign-out, sign-out of the other sessions", async () => {
    const { email } = await createOwner(t);
    const wrong = await publicPost(t, "/sign-in", { email, password: "not the password" });
    expect(wrong.status).toBe(401);
    const unknown = await publicPost(t, "/sign-in", { email: "nobody@example.com", password: "whatever" });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.message).toBe(wrong.body.error.message);

    const a = await signIn(t, email.toUpperCase(), PASSWORD);
    const b = await signIn(t, email, PASSWORD, { "user-agent": "Phone" });
    const list = await a.call("/console/api/sessions");
    expect(list.body.data.filter((s: any) => s.current)).toHaveLength(1);
    expect(list.body.data.length).toBeGreaterThanOrEqual(3);
    const ended = await a.call("/console/api/sessions/others", { method: "DELETE" });
    expect(ended.body.data.ended).toBeGreaterThanOrEqual(2);
    expect((await b.call("/console/api/session")).status).toBe(401);
    expect((await a.call("/console/api/session")).status).toBe(200);

    const out = await a.call("/console/api/session/sign-out", { method: "POST" });
    expect(out.headers.get("set-cookie")).toMatch(/^svc_session=; Path=\/; Max-Age=0/);
    expect((await a.call("/public-api/v1/links")).status).toBe(401);
  });

  test("idle and absolute expiry", async () => {
    const { email } = await createOwner(t);
    const idle = await signIn(t, email, PASSWORD);
    const old = await signIn(t, email, PASSWORD);
    const fresh = await signIn(t, email, PASSWORD);
    const pg = t.runtime.deps.pg;
    const hash = (s: { cookie: string }) => new Bun.CryptoHasher("sha256").update(s.cookie.split("=")[1]).digest("hex");
    await pg.query(sql`update user_sessions set last_seen_at = now() - interval '169 hours' where token_hash = ${hash(idle)}`);
    await pg.query(sql`update user_sessions set expires_at = now() - interval '1 second' where token_hash = ${hash(old)}`);
    expect((await idle.call("/console/api/session")).status).toBe(401);
    expect((await old.call("/console/api/session")).status).toBe(401);
    expect((await fresh.call("/console/api/session")).status).toBe(200);
  });

  test("sign-in is throttled per email and per address", async () => {
    const proxied = await createTestApp({ trustProxy: true });
    try {
      const from = (n: number) => ({ "x-forwarded-for": `198.51.100.${n}` });
      const email = "throttled@example.com";
      for (let i = 0; i < 10; i++)
        expect((await publicPost(proxied, "/sign-in", { email, password: "guess " + i }, from(i))).status).toBe(401);
      const blocked = await publicPost(proxied, "/sign-in", { email, password: "guess" }, from(99));
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      // Per address: 30 attempts, whatever the emails.
      for (let i = 0; i < 30; i++)
        expect((await publicPost(proxied, "/sign-in", { email: `x${i}@example.com`, password: "x" }, from(200))).status).toBe(401);
      expect((await publicPost(proxied, "/sign-in", { email: "x99@example.com", password: "x" }, from(200))).status).toBe(429);
      expect((await publicPost(proxied, "/sign-in", { email: "x99@example.com", password: "x" }, from(201))).status).toBe(401);
    } finally {
      await proxied.close();
    }
  });

  test("a sign-in form posted from another origin is refused before anything is checked", async () => {
    const res = await t.call("/console/api/auth/sign-in", {
      method: "POST",
      json: { email: "a@example.com", password: "x" },
      headers: { origin: "http://evil.example" },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("CROSS_SITE_REQUEST");
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  test("password change: the current password is checked, the policy applies, other sessions end", async () => {
    const { email, session } = await createOwner(t);
    const other = await signIn(t, email, PASSWORD);
    const wrong = await session.call("/console/api/session/password", {
      method: "POST",
      json: { current_password: "nope", new_password: "a new long password" },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.fields[0].field).toBe("body.current_password");
    const weak = await session.call("/console/api/session/password", {
      method: "POST",
      json: { current_password: PASSWORD, new_password: "short" },
    });
    expect(weak.body.error.details.fields[0].field).toBe("body.new_password");
    const ok = await session.call("/console/api/session/password", {
      method: "POST",
      json: { current_password: PASSWORD, new_password: "a new long password" },
    });
    expect(ok.status).toBe(200);
    expect((await other.call("/console/api/session")).status).toBe(401);
    expect((await session.call("/console/api/session")).status).toBe(200);
    expect((await publicPost(t, "/sign-in", { email, password: PASSWORD })).status).toBe(401);
    await signIn(t, email, "a new long password");
  });
});

test("behind https (BASE_URL), the cookie is Secure with the __Host- prefix, and that name is the one read", async () => {
  const https = await createTestApp({}, { BASE_URL: "https://links.example" });
  try {
    const url = await firstOwnerLink(https);
    const res = await publicPost(https, "/accept-invitation", { token: tokenOf(url), password: PASSWORD, email: "s@example.com" });
    expect(url).toStartWith("https://links.example/console/setup#");
    expect(res.headers.get("set-cookie")).toMatch(
      /^__Host-svc_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; Secure; HttpOnly; SameSite=Lax$/,
    );
    const cookie = cookieOf(res.headers);
    expect((await https.call("/console/api/session", { headers: { cookie } })).status).toBe(200);
    expect((await https.call("/console/api/session", { headers: { cookie: cookie.replace("__Host-", "") } })).status).toBe(401);
  } finally {
    await https.close();
  }
});

describe("sign-up modes", () => {
  test("invite-only by default: sign-up is refused and creates nothing", async () => {
    const res = await publicPost(t, "/sign-up", { email: "new@example.com", password: PASSWORD, account_name: "New" });
    expect(res.status).toBe(403);
    expect((await publicPost(t, "/sign-in", { email: "new@example.com", password: PASSWORD })).status).toBe(401);
    expect((await t.call("/console/api/auth/config")).body.data).toEqual({
      signup_mode: "invite",
      password_reset: "operator",
      password_min_length: 10,
      signed_in: false,
    });
  });

  test("auth/config says whether the cookie is a live session, so the console never asks for a 401", async () => {
    const { session } = await createOwner(t);
    const withCookie = await t.call("/console/api/auth/config", { headers: { cookie: session.cookie } });
    expect(withCookie.body.data.signed_in).toBe(true);
    const otherSite = await t.call("/console/api/auth/config", { headers: { cookie: session.cookie, origin: "https://evil.example" } });
    expect(otherSite.body.data.signed_in).toBe(false);
    await session.call("/console/api/session/sign-out", { method: "POST" });
    const ended = await t.call("/console/api/auth/config", { headers: { cookie: session.cookie } });
    expect(ended.body.data.signed_in).toBe(false);
  });

  test("open: a new user owns a new free account; closed: no console invitations", async () => {
    const open = await createTestApp({ signupMode: "open" });
    try {
      const res = await publicPost(open, "/sign-up", { email: "new@example.com", password: PASSWORD, account_name: "New Co" });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ role: "owner", account: { name: "New Co", tier: "free" } });
      expect((await publicPost(open, "/sign-up", { email: "new@example.com", password: PASSWORD, account_name: "Again" })).status).toBe(
        409,
      );
    } finally {
      await open.close();
    }
    const closed = await createTestApp({ signupMode: "closed" });
    try {
      const { session } = await createOwner(closed);
      const res = await session.call("/console/api/team/invitations", { method: "POST", json: { email: "x@example.com", role: "viewer" } });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toContain("SIGNUP_MODE=closed");
    } finally {
      await closed.close();
    }
  });
});
