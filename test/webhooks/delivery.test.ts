// Webhook deliveries to real HTTPS receivers on loopback: signatures, headers, retries, statuses,
// auto-disable and re-enable, 410, the test endpoint, and the delivery-time URL re-check.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { createTestApp, type TestApp } from "../helpers/app";
import { emitEvent } from "../../server/webhooks/outbox";
import { encryptSecret } from "../../server/webhooks/secrets";
import { startReceiver, verifyStandardSignature, verifySvcSignature, type Receiver } from "./receiver";

let t: TestApp;
const receivers: Receiver[] = [];
beforeAll(async () => {
  t = await createTestApp({}, { WEBHOOK_ALLOW_INSECURE: "true", WEBHOOK_RETRY_DELAYS_MS: "50,100" });
}, 60_000);
afterAll(async () => {
  for (const r of receivers) r.stop();
  await t.close();
}, 60_000);

const hooks = "/public-api/v1/webhooks";
const receiverFor = (respond?: Parameters<typeof startReceiver>[0]) => {
  const r = startReceiver(respond);
  receivers.push(r);
  return r;
};

async function setup(events: string[], respond?: Parameters<typeof startReceiver>[0], tier: "scale" | "pro" = "scale") {
  const receiver = receiverFor(respond);
  const account = await t.createAccount({ tier });
  const { body } = await t.call(hooks, { method: "POST", key: account.key, json: { url: receiver.url, events } });
  return { ...account, receiver, endpoint: body.data as { id: string; secret: string } };
}

/** A delivery that succeeded at its first attempt, the receiver answering 200 "ok". */
const DELIVERED_AT_ONCE = {
  status: "delivered",
  attempt_number: 1,
  max_attempts: 3,
  http_status: 200,
  response_body: "ok",
  error_message: null,
};

/** Like setup, with a receiver that holds each request until the test answers it through `gates[i]`. */
async function setupHeld(events: string[]) {
  const gates: ((res: Response) => void)[] = [];
  return { ...(await setup(events, () => new Promise<Response>((resolve) => gates.push(resolve)))), gates };
}

const deliveries = async (key: string, id: string) => (await t.call(`${hooks}/${id}/deliveries`, { key })).body.data as any[];
async function waitForDeliveries(key: string, id: string, done: (list: any[]) => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = await deliveries(key, id);
    if (done(list)) return list;
    if (Date.now() > deadline) throw new Error(`deliveries not settled: ${JSON.stringify(list.map((d) => [d.status, d.attempt_number]))}`);
    await Bun.sleep(25);
  }
}
const getEndpoint = async (key: string, id: string) => (await t.call(`${hooks}/${id}`, { key })).body.data;

describe("signed deliveries", () => {
  test("both signatures verify on the receiver, the headers are there, and the body is the stored payload", async () => {
    const { key, accountId, receiver, endpoint } = await setup(["team.member_added"]);
    const added = await t.admin("POST", `/accounts/${accountId}/members`, { email: "ada@example.com", role: "admin" });
    const [r] = await receiver.waitFor((all) => all.length >= 1);
    expect(verifySvcSignature(endpoint.secret, r)).toBe(true);
    expect(verifyStandardSignature(endpoint.secret, r)).toBe(true);
    const wrongSecret = `whsec_${Buffer.alloc(32).toString("base64")}`;
    expect(verifySvcSignature(wrongSecret, r) || verifyStandardSignature(wrongSecret, r)).toBe(false);
    // The Standard Webhooks reference verifier, used as it is with the whsec_ secret.
    expect(new Webhook(endpoint.secret).verify(r.body, Object.fromEntries(r.headers))).toEqual(r.json);

    expect(r.headers.get("content-type")).toBe("application/json");
    expect(r.headers.get("x-svc-event")).toBe("team.member_added");
    expect(r.headers.get("x-svc-signature")).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(r.headers.get("webhook-signature")).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(Math.abs(Number(r.headers.get("webhook-timestamp")) - Date.now() / 1000)).toBeLessThan(5);
    expect(Object.keys(r.json)).toEqual(["event", "timestamp", "data"]);
    expect(r.json).toEqual({ event: "team.member_added", timestamp: r.json.timestamp, data: added.body.data });
    expect(new Date(r.json.timestamp).toISOString()).toBe(r.json.timestamp);

    const [d] = await waitForDeliveries(key, endpoint.id, (l) => l[0]?.status === "delivered");
    expect(r.headers.get("x-svc-delivery")).toBe(d.id);
    expect(r.headers.get("webhook-id")).toBe(d.id);
    expect(d).toMatchObject({
      endpoint_id: endpoint.id,
      event_type: "team.member_added",
      ...DELIVERED_AT_ONCE,
      next_retry_at: null,
    });
    expect(d.payload).toEqual(r.json);
    expect(d.delivered_at).not.toBeNull();
  });

  test("events of the admin API arrive with their data: api_key.*, team.*, subscription.*", async () => {
    const all = [
      "api_key.created",
      "api_key.revoked",
      "team.member_added",
      "team.member_removed",
      "subscription.upgraded",
      "subscription.downgraded",
    ];
    const { accountId, receiver, endpoint } = await setup(all, undefined, "pro");
    const newKey = await t.admin("POST", `/accounts/${accountId}/keys`, { name: "ci", scopes: ["links:read"] });
    const revoked = await t.admin("DELETE", `/accounts/${accountId}/keys/${newKey.body.data.id}`);
    const member = await t.admin("POST", `/accounts/${accountId}/members`, { email: "Bob@Example.com", role: "member" });
    const removed = await t.admin("DELETE", `/accounts/${accountId}/members/${member.body.data.id}`);
    await t.admin("PATCH", `/accounts/${accountId}`, { tier: "scale" });
    await t.admin("PATCH", `/accounts/${accountId}`, { tier: "growth" });
    await receiver.waitFor((r) => r.length >= 6);
    const byEvent = Object.fromEntries(receiver.received.map((r) => [r.json.event, r.json.data]));
    const { key: fullKey, ...keyRecord } = newKey.body.data;
    expect(byEvent["api_key.created"]).toEqual(keyRecord);
    expect(JSON.stringify(receiver.received.map((r) => r.body))).not.toContain(fullKey);
    expect(byEvent["api_key.revoked"]).toEqual(revoked.body.data);
    expect(byEvent["api_key.revoked"].revoked_at).not.toBeNull();
    expect(byEvent["team.member_added"]).toEqual(member.body.data);
    expect(byEvent["team.member_removed"]).toEqual(removed.body.data);
    expect(byEvent["subscription.upgraded"]).toEqual({ account_id: accountId, previous_tier: "pro", tier: "scale" });
    expect(byEvent["subscription.downgraded"]).toEqual({ account_id: accountId, previous_tier: "scale", tier: "growth" });
    for (const r of receiver.received) {
      expect(verifySvcSignature(endpoint.secret, r)).toBe(true);
      expect(r.headers.get("x-svc-event")).toBe(r.json.event);
    }
  });

  test("only subscribed events of active endpoints of the same account are delivered", async () => {
    const { accountId, receiver } = await setup(["team.member_removed"]);
    const other = await setup(["team.member_added"]);
    await t.admin("POST", `/accounts/${accountId}/members`, { email: "x@example.com", role: "member" });
    await t.admin("POST", `/accounts/${other.accountId}/members`, { email: "y@example.com", role: "member" });
    await other.receiver.waitFor((r) => r.length === 1);
    await t.runtime.jobs.webhooks.runOnce(); // every delivery due is attempted and settled
    expect(receiver.received.length).toBe(0);
    expect(other.receiver.received[0].json.data.email).toBe("y@example.com");
  });
});

describe("retries and statuses", () => {
  test("pending → retrying → delivered; webhook-id stays while webhook-timestamp changes", async () => {
    const { key, accountId, receiver, endpoint, gates } = await setupHeld(["conversion"]);
    await emitEvent(t.runtime.deps.pg.db, accountId, "conversion", { order: 1 });
    await receiver.waitFor((r) => r.length === 1);
    expect((await deliveries(key, endpoint.id))[0]).toMatchObject({ status: "pending", attempt_number: 0 });
    await Bun.sleep(1100); // so the second attempt's Unix-seconds timestamp differs
    gates[0](new Response("boom", { status: 500 }));
    const [retrying] = await waitForDeliveries(key, endpoint.id, (l) => l[0].attempt_number === 1);
    expect(retrying).toMatchObject({
      status: "retrying",
      http_status: 500,
      response_body: "boom",
      error_message: "Receiver answered HTTP 500",
    });
    expect(retrying.next_retry_at).not.toBeNull();
    await receiver.waitFor((r) => r.length === 2);
    expect((await deliveries(key, endpoint.id))[0]).toMatchObject({ status: "retrying", attempt_number: 1 });
    gates[1](new Response("thanks", { status: 202 }));
    const [delivered] = await waitForDeliveries(key, endpoint.id, (l) => l[0].status === "delivered");
    expect(delivered).toMatchObject({
      attempt_number: 2,
      http_status: 202,
      response_body: "thanks",
      error_message: null,
      next_retry_at: null,
    });

    const [a, b] = receiver.received;
    expect(a.headers.get("webhook-id")).toBe(delivered.id);
    expect(b.headers.get("webhook-id")).toBe(delivered.id);
    expect(Number(b.headers.get("webhook-timestamp"))).toBeGreaterThan(Number(a.headers.get("webhook-timestamp")));
    expect(b.headers.get("webhook-signature")).not.toBe(a.headers.get("webhook-signature"));
    expect(b.body).toBe(a.body);
    for (const r of [a, b]) expect(verifyStandardSignature(endpoint.secret, r) && verifySvcSignature(endpoint.secret, r)).toBe(true);
    expect((await getEndpoint(key, endpoint.id)).consecutive_failures).toBe(0);
  });

  test("three failed attempts end as failed, spaced by the configured delays; the body is capped at 1 KB", async () => {
    const { key, accountId, receiver, endpoint } = await setup(["conversion"], () => new Response("x".repeat(5000), { status: 503 }));
    await emitEvent(t.runtime.deps.pg.db, accountId, "conversion", { order: 2 });
    const [d] = await waitForDeliveries(key, endpoint.id, (l) => l[0]?.status === "failed");
    expect(d).toMatchObject({ attempt_number: 3, max_attempts: 3, http_status: 503, next_retry_at: null, delivered_at: null });
    expect(d.response_body).toBe("x".repeat(1024));
    expect(receiver.received.length).toBe(3);
    const [a, b, c] = receiver.received.map((r) => r.at);
    expect(b - a).toBeGreaterThanOrEqual(45);
    expect(c - b).toBeGreaterThanOrEqual(95);
    await t.runtime.jobs.webhooks.runOnce();
    expect(receiver.received.length).toBe(3);
    expect((await getEndpoint(key, endpoint.id)).consecutive_failures).toBe(3);
    const metrics = await t.runtime.deps.metrics.registry.getSingleMetricAsString("webhook_deliveries_total");
    expect(metrics).toMatch(/outcome="retrying"} [1-9]/);
    expect(metrics).toMatch(/outcome="failed"} [1-9]/);
  });

  test("network errors and redirects are failures; redirects are not followed", async () => {
    const target = receiverFor();
    const { key, accountId, endpoint } = await setup(
      ["conversion"],
      () => new Response(null, { status: 302, headers: { location: target.url } }),
    );
    await emitEvent(t.runtime.deps.pg.db, accountId, "conversion", {});
    const [d] = await waitForDeliveries(key, endpoint.id, (l) => l[0]?.status === "failed");
    expect(d).toMatchObject({ http_status: 302, error_message: "Receiver answered HTTP 302" });
    expect(target.received.length).toBe(0);

    const dead = receiverFor();
    dead.stop();
    await t.call(`${hooks}/${endpoint.id}`, { method: "PATCH", key, json: { url: dead.url } });
    const test = await t.call(`${hooks}/${endpoint.id}/test`, { method: "POST", key });
    expect(test.body.data).toMatchObject({ status: "retrying", attempt_number: 1, http_status: null });
    expect(test.body.data.error_message).toStartWith("Network error");
  });

  test("10 consecutive failed attempts disable the endpoint; PATCH is_active true re-enables it", async () => {
    let answer = 500;
    const { key, accountId, receiver, endpoint } = await setup(["conversion"], () => new Response("no", { status: answer }));
    for (let i = 0; i < 4; i++) {
      await emitEvent(t.runtime.deps.pg.db, accountId, "conversion", { i });
      await waitForDeliveries(key, endpoint.id, (l) => l.length === i + 1 && l[0].status === "failed");
    }
    expect(receiver.received.length).toBe(10); // 3 + 3 + 3 + 1: the tenth failure disables
    const disabled = await getEndpoint(key, endpoint.id);
    expect(disabled).toMatchObject({ is_active: false, consecutive_failures: 10 });
    expect((await deliveries(key, endpoint.id))[0]).toMatchObject({ status: "failed", attempt_number: 1 });

    await emitEvent(t.runtime.deps.pg.db, accountId, "conversion", { while: "disabled" });
    await t.runtime.jobs.webhooks.runOnce();
    expect(receiver.received.length).toBe(10);
    expect((await deliveries(key, endpoint.id)).length).toBe(4);

    answer = 200;
    const enabled = await t.call(`${hooks}/${endpoint.id}`, { method: "PATCH", key, json: { is_active: true } });
    expect(enabled.body.data).toMatchObject({ is_active: true, consecutive_failures: 0 });
    await emitEvent(t.runtime.deps.pg.db, accountId, "conversion", { after: "re-enable" });
    await receiver.waitFor((r) => r.length === 11);
    expect(receiver.received[10].json.data).toEqual({ after: "re-enable" });
  });

  test("a 410 answer disables the endpoint at once and stops its other deliveries", async () => {
    const { key, accountId, receiver, endpoint, gates } = await setupHeld(["conversion"]);
    await emitEvent(t.runtime.deps.pg.db, accountId, "conversion", { n: 1 });
    await receiver.waitFor((r) => r.length === 1);
    await t.runtime.deps.pg.db.transaction(async (tx) => {
      await emitEvent(tx, accountId, "conversion", { n: 2 });
    });
    await receiver.waitFor((r) => r.length === 2);
    gates[0](new Response("gone", { status: 410 }));
    await waitForDeliveries(key, endpoint.id, (l) => l.some((d) => d.http_status === 410));
    expect(await getEndpoint(key, endpoint.id)).toMatchObject({ is_active: false, consecutive_failures: 1 });
    gates[1](new Response("late", { status: 500 }));
    const list = await waitForDeliveries(key, endpoint.id, (l) => l.every((d) => d.status === "failed"));
    expect(list.length).toBe(2);
    await t.runtime.jobs.webhooks.runOnce();
    expect(receiver.received.length).toBe(2);
  });

  test("the URL is checked again before each attempt (DNS rebinding): a private target gets nothing", async () => {
    const strict = await createTestApp({}, { WEBHOOK_RETRY_DELAYS_MS: "50,100" });
    try {
      const receiver = receiverFor();
      const { accountId, key } = await strict.createAccount();
      // As if a public name had been re-pointed at a loopback address after the endpoint was saved.
      const [row] = await strict.runtime.deps.pg.query<{ id: string }>(sql`
        insert into webhook_endpoints (account_id, url, events, secret_encrypted)
        values (${accountId}, ${receiver.url}, ${"{conversion}"}::text[], ${encryptSecret(strict.config.appSecret, `whsec_${Buffer.alloc(32, 1).toString("base64")}`)})
        returning id`);
      const res = await strict.call(`${hooks}/${row.id}/test`, { method: "POST", key });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ event_type: "test", attempt_number: 1, http_status: null });
      expect(res.body.data.error_message).toContain("Refused: URL host 127.0.0.1 is a private");
      // Its retries are refused the same way, until the delivery ends as failed.
      for (let status = ""; status !== "failed"; await Bun.sleep(25)) {
        status = (await strict.call(`${hooks}/${row.id}/deliveries`, { key })).body.data[0].status;
      }
      await strict.runtime.jobs.webhooks.runOnce();
      expect(receiver.received.length).toBe(0);
    } finally {
      await strict.close();
    }
  });
});

describe("test endpoint", () => {
  test("sends event test now and answers with the delivery after the attempt", async () => {
    const { key, receiver, endpoint } = await setup(["link.created"]);
    const res = await t.call(`${hooks}/${endpoint.id}/test`, { method: "POST", key });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({
      endpoint_id: endpoint.id,
      event_type: "test",
      ...DELIVERED_AT_ONCE,
    });
    expect(receiver.received.length).toBe(1);
    const [r] = receiver.received;
    expect(r.headers.get("x-svc-event")).toBe("test");
    expect(r.headers.get("webhook-id")).toBe(d.id);
    expect(r.json).toEqual(d.payload);
    expect(r.json).toMatchObject({ event: "test", data: { webhook_id: endpoint.id } });
    expect(verifySvcSignature(endpoint.secret, r) && verifyStandardSignature(endpoint.secret, r)).toBe(true);
    expect((await deliveries(key, endpoint.id))[0]).toEqual(d);
  });
});
