// Reset and invitation links: by the operator's CLI (no SMTP server), and by email through a real SMTP
// server on loopback; the admin API's side; the sign-in throttle shared through Redis.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { acceptLink, createOwner, publicPost, signIn, tokenOf } from "../helpers/console";
import { linkIn, startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";
import { startRedis } from "../scale/stack";
import { useCliServer } from "../helpers/cli";

const PASSWORD = "correct horse battery";

describe("without an SMTP server", () => {
  const app = useCliServer();
  const cli = app.cli;

  test("the forgot-password form says to ask the operator; the CLI's reset link sets a new password once", async () => {
    const { email, session } = await createOwner(app.t);
    const form = await publicPost(app.t, "/password-reset", { email });
    expect(form.status).toBe(403);
    expect(form.body.error.message).toContain("npm run recover -- <email>");

    const unknown = await cli("user", "reset-password", "nobody@example.com");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("404");
    const out = await cli("user", "reset-password", email.toUpperCase());
    expect(out.code).toBe(0);
    const link = JSON.parse(out.out);
    expect(link.reset_url).toMatch(/\/console\/reset#[A-Za-z0-9_-]{43}$/);

    const weak = await publicPost(app.t, "/password-reset/confirm", { token: tokenOf(link.reset_url), password: "short" });
    expect(weak.status).toBe(400);
    const ok = await publicPost(app.t, "/password-reset/confirm", { token: tokenOf(link.reset_url), password: "a brand new password" });
    expect(ok.status).toBe(200);
    expect((await session.call("/console/api/session")).status).toBe(401); // every session ended
    expect(
      (await publicPost(app.t, "/password-reset/confirm", { token: tokenOf(link.reset_url), password: "another new password" })).status,
    ).toBe(404);
    await signIn(app.t, email, "a brand new password");
  });

  test("the CLI's invitation and setup links", async () => {
    const account = JSON.parse((await cli("account", "create", "--name", "Cli Team", "--tier", "growth")).out);
    const invite = JSON.parse((await cli("user", "invite", account.id, "--email", "cli-member@example.com", "--role", "member")).out);
    expect(invite.invitation_url).toMatch(/\/console\/invite#/);
    const member = await acceptLink(app.t, invite.invitation_url, PASSWORD);
    expect(member.data).toMatchObject({ role: "member", account: { id: account.id, name: "Cli Team" } });
    const setup = JSON.parse((await cli("user", "invite", account.id, "--role", "owner")).out);
    expect(setup.invitation_url).toMatch(/\/console\/setup#/);
    const owner = await acceptLink(app.t, setup.invitation_url, PASSWORD, "cli-owner@example.com");
    expect(owner.data.role).toBe("owner");
  });

  test("the admin API checks its bearer before the body, and binds members who already have a user", async () => {
    const noBearer = await app.t.call("/admin/v1/users/password-reset", {
      method: "POST",
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(noBearer.status).toBe(401);
    const a = await createOwner(app.t);
    const other = await app.t.admin("POST", "/accounts", { name: "Second", tier: "free" });
    const added = await app.t.admin("POST", `/accounts/${other.body.data.id}/members`, { email: a.email, role: "viewer" });
    expect(added.status).toBe(201);
    const session = (await a.session.call("/console/api/session")).body.data;
    expect(session.accounts.map((x: any) => x.id)).toContain(other.body.data.id);
    const switched = await a.session.call("/console/api/session/account", { method: "POST", json: { account_id: other.body.data.id } });
    expect(switched.body.data).toMatchObject({ role: "viewer", account: { name: "Second" } });
    expect((await a.session.call("/public-api/v1/links", { method: "POST", json: { url: "https://example.com" } })).status).toBe(403);
    const foreign = await app.t.admin("POST", "/accounts", { name: "Not mine", tier: "free" });
    expect(
      (await a.session.call("/console/api/session/account", { method: "POST", json: { account_id: foreign.body.data.id } })).status,
    ).toBe(404);
  });

  test("API keys from the console: a tracker key ingests, revoking it refuses it at once, tier quotas hold", async () => {
    const { session } = await createOwner(app.t, { tier: "free" });
    const link = await session.call("/public-api/v1/links", { method: "POST", json: { url: "https://example.com/t" } });
    const badIp = await session.call("/console/api/keys", {
      method: "POST",
      json: { name: "t", scopes: ["journey:write"], allowed_ips: ["nope"] },
    });
    expect(badIp.status).toBe(400);
    expect(badIp.body.error.details.fields[0].field).toBe("body.allowed_ips.0");
    const created = await session.call("/console/api/keys", { method: "POST", json: { name: "tracker", scopes: ["journey:write"] } });
    expect(created.status).toBe(201);
    expect(created.body.data.key).toMatch(/^svc_[A-Za-z0-9_-]{28}$/);
    const key = created.body.data.key;
    const event = { link_id: link.body.data.id, visitor_id: "v1", event_type: "page_view", page_url: "https://example.com/t" };
    const ingest = await app.t.call("/public-api/v1/journey/events", { method: "POST", key, json: { events: [event] } });
    expect(ingest.status).toBe(202);
    expect((await app.t.call("/public-api/v1/links", { key })).status).toBe(403);

    const listed = (await session.call("/console/api/keys")).body.data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ name: "tracker", prefix: key.slice(0, 8), scopes: ["journey:write"], revoked_at: null });
    expect(listed[0].key).toBeUndefined();
    const second = await session.call("/console/api/keys", { method: "POST", json: { name: "more", scopes: ["links:read"] } });
    expect(second.status).toBe(403);
    expect(second.body.error.code).toBe("QUOTA_EXCEEDED");

    expect((await session.call(`/console/api/keys/${created.body.data.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await app.t.call("/public-api/v1/journey/events", { method: "POST", key, json: { events: [event] } })).status).toBe(401);
  });

  test("the account page's numbers: tier, keys, this month's clicks and journey events", async () => {
    const { session } = await createOwner(app.t, { tier: "growth" });
    const link = await session.call("/public-api/v1/links", { method: "POST", json: { url: "https://example.com/u" } });
    for (let i = 0; i < 2; i++) await app.t.request(`/${link.body.data.short_code}`);
    const key = (await session.call("/console/api/keys", { method: "POST", json: { name: "t", scopes: ["journey:write"] } })).body.data.key;
    const events = [1, 2, 3].map((n) => ({
      link_id: link.body.data.id,
      visitor_id: `v${n}`,
      event_type: "page_view",
      page_url: "https://example.com/u",
    }));
    await app.t.call("/public-api/v1/journey/events", { method: "POST", key, json: { events } });
    await app.t.flush();
    await app.t.runtime.jobs.journey.runOnce(); // writes the usage counters out
    const overview = (await session.call("/console/api/account")).body.data;
    expect(overview.account.tier).toBe("growth");
    expect(overview.usage).toMatchObject({
      clicks_this_month: 2,
      click_limit: 100_000,
      journey_events_this_month: 3,
      journey_event_limit: 500_000,
      api_keys: 1,
      api_key_limit: 10,
      webhook_endpoints: 0,
      webhook_endpoint_limit: 5,
    });
  });
});

describe("with an SMTP server", () => {
  let t: TestApp;
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
    t = await createTestApp({}, { SMTP_URL: sink.url, MAIL_FROM: "Links <links@example.com>" });
  });
  afterAll(async () => {
    await t.close();
    await sink.stop();
  });

  test("the forgot-password form emails a one-time link, and says the same for an unknown email", async () => {
    const { email } = await createOwner(t);
    expect((await t.call("/console/api/auth/config")).body.data.password_reset).toBe("email");
    const unknown = await publicPost(t, "/password-reset", { email: "nobody@example.com" });
    const known = await publicPost(t, "/password-reset", { email });
    expect([unknown.status, known.status]).toEqual([202, 202]);
    expect(unknown.body.data).toEqual(known.body.data);
    const mail = await sink.next();
    expect(mail.to && "text" in mail.to ? mail.to.text : "").toBe(email);
    expect(mail.from?.text).toContain("links@example.com");
    const url = linkIn(mail);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/console\/reset#[A-Za-z0-9_-]{43}$/);
    expect((await publicPost(t, "/password-reset/confirm", { token: tokenOf(url), password: "emailed new password" })).status).toBe(200);
    await signIn(t, email, "emailed new password");
  });

  test("an invitation is emailed, and its link is not shown to the inviter", async () => {
    const { session } = await createOwner(t);
    const res = await session.call("/console/api/team/invitations", {
      method: "POST",
      json: { email: "mailed@example.com", role: "viewer" },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.email_sent).toBe(true);
    expect(res.body.data.invitation_url).toBeUndefined();
    const mail = await sink.next();
    expect(mail.subject).toContain("You are invited");
    const viewer = await acceptLink(t, linkIn(mail), PASSWORD);
    expect(viewer.data.role).toBe("viewer");
  });
});

test("the sign-in throttle holds across instances sharing Redis", async () => {
  const redis = await startRedis();
  const apps: TestApp[] = [];
  try {
    const env = { REDIS_URL: redis.url };
    apps.push(await createTestApp({}, env), await createTestApp({}, env));
    await apps[0].runtime.deps.kv.ping();
    const email = "shared-throttle@example.com";
    for (let i = 0; i < 10; i++) expect((await publicPost(apps[i % 2], "/sign-in", { email, password: `guess ${i}` })).status).toBe(401);
    expect((await publicPost(apps[0], "/sign-in", { email, password: "guess" })).status).toBe(429);
    expect((await publicPost(apps[1], "/sign-in", { email, password: "guess" })).status).toBe(429);
  } finally {
    for (const a of apps) await a.close();
    await redis.stop();
  }
});
