// Alerts as an owner sees them: set through the API, checked by the job's round, delivered by email
// (a real SMTP server on loopback, the message parsed) and as a signed webhook event, at most once per
// 12 hours even when two rounds check at the same moment.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";
import { insertLink, pageView, postEvents } from "../journey/helpers";
import { startReceiver, verifySvcSignature, type Receiver } from "../webhooks/receiver";
import { checkAlerts } from "../../server/alerts/service";
import { createMailer } from "../../server/mail/mailer";

const P = "/public-api/v1";
const HOUR = 3_600_000;
let t: TestApp;
let sink: SmtpSink;
let receiver: Receiver;

beforeAll(async () => {
  sink = await startSmtpSink();
  receiver = startReceiver();
  t = await createTestApp(
    {},
    { SMTP_URL: sink.url, MAIL_FROM: "Links <links@example.com>", WEBHOOK_ALLOW_INSECURE: "true" },
    { jobs: ["webhooks"] },
  );
}, 60_000);
afterAll(async () => {
  await t.close();
  await sink.stop();
  receiver.stop();
});

const to = (m: { to?: unknown }) => ((m.to as { text?: string } | undefined)?.text ?? "").toLowerCase();

describe("the alerts API", () => {
  test("bad input names the field and stores nothing; another account's alert is a 404", async () => {
    const { key, accountId } = await t.createAccount();
    const link = await insertLink(t, accountId);
    const post = (json: unknown) => t.call(`${P}/alerts`, { method: "POST", key, json });
    const noLink = await post({ kind: "conversion_drop", threshold: 20 });
    expect(noLink.status).toBe(400);
    expect(noLink.body.error.message).toContain("body.link_id");
    const pct = await post({ kind: "conversion_drop", threshold: 120, link_id: link });
    expect(pct.status).toBe(400);
    expect(pct.body.error.message).toContain("threshold");
    const email = await post({ kind: "visitors_above", threshold: 5, recipients: ["not an address"] });
    expect(email.status).toBe(400);
    expect(JSON.stringify(email.body.error)).toContain("recipients");
    expect((await t.call(`${P}/alerts`, { key })).body.data).toEqual([]);

    const made = await post({ kind: "visitors_above", threshold: 5, link_id: link, recipients: ["Ops@Example.com"] });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({
      kind: "visitors_above",
      threshold: 5,
      link_id: link,
      recipients: ["ops@example.com"],
      enabled: true,
    });
    const other = await t.createAccount();
    expect((await t.call(`${P}/alerts/${made.body.data.id}`, { key: other.key })).status).toBe(404);
    expect((await t.call(`${P}/alerts/${made.body.data.id}`, { method: "DELETE", key: other.key })).status).toBe(404);
    expect(
      (await t.call(`${P}/alerts`, { method: "POST", key: other.key, json: { kind: "visitors_above", threshold: 1, link_id: link } }))
        .status,
    ).toBe(404);
    const patched = await t.call(`${P}/alerts/${made.body.data.id}`, { method: "PATCH", key, json: { threshold: 9, enabled: false } });
    expect(patched.body.data).toMatchObject({ threshold: 9, enabled: false });
    const readOnly = await t.createAccount({ scopes: ["webhooks:read"] });
    expect(
      (await t.call(`${P}/alerts`, { method: "POST", key: readOnly.key, json: { kind: "visitors_above", threshold: 1 } })).status,
    ).toBe(403);
    expect((await t.call(`${P}/alerts/${made.body.data.id}`, { method: "DELETE", key })).status).toBe(200);
    expect((await t.call(`${P}/alerts/${made.body.data.id}`, { key })).status).toBe(404);
  });
});

describe("checks and deliveries", () => {
  test("spike, drop and conversion-rate alerts trigger once per 12 hours, by email and a signed webhook event", async () => {
    const { key, accountId } = await t.createAccount();
    const link = await insertLink(t, accountId);
    const hook = await t.call(`${P}/webhooks`, { method: "POST", key, json: { url: receiver.url, events: ["alert.triggered"] } });
    expect(hook.status).toBe(201);
    const secret = hook.body.data.secret as string;

    // Three visitors in the last minutes, none converting; two visitors three days ago, both converting.
    const now = Date.now();
    const at = (ms: number) => new Date(ms).toISOString();
    const events = [
      ...["v1", "v2", "v3"].map((v) => pageView(link, v, { timestamp: at(now - 60_000) })),
      ...["old1", "old2"].flatMap((v) => [
        pageView(link, v, { timestamp: at(now - 72 * HOUR) }),
        {
          ...pageView(link, v, { timestamp: at(now - 72 * HOUR + 60_000) }),
          event_type: "conversion",
          conversion_name: "order",
          revenue_cents: 1000,
        },
      ]),
    ];
    expect((await postEvents(t, key, events)).status).toBeLessThan(300);
    await t.flush();

    const alert = async (json: Record<string, unknown>) => (await t.call(`${P}/alerts`, { method: "POST", key, json })).body.data;
    const spike = await alert({ kind: "visitors_above", threshold: 2, link_id: link, recipients: ["spike@example.com"] });
    const calm = await alert({ kind: "visitors_above", threshold: 3, link_id: link, recipients: ["calm@example.com"] });
    const drop = await alert({ kind: "visitors_below", threshold: 10, recipients: ["drop@example.com"] });
    const quiet = await alert({ kind: "visitors_below", threshold: 3, recipients: ["quiet@example.com"] });
    const rate = await alert({
      kind: "conversion_drop",
      threshold: 50,
      link_id: link,
      recipients: ["rate@example.com", "cfo@example.com"],
    });

    // Two rounds at the same moment (as two instances would run them): each alert is claimed once.
    const mailer = createMailer(sink.url, "Links <links@example.com>");
    const deps = {
      pg: t.runtime.deps.pg,
      ch: t.runtime.deps.ch,
      baseUrl: t.config.baseUrl,
      appSecret: t.config.appSecret,
      mailer,
      logger: t.runtime.deps.logger,
    };
    const [a, b] = await Promise.all([t.runtime.jobs.alerts.runOnce().then(() => null), checkAlerts(deps)]);
    expect(a).toBeNull();
    mailer?.close();
    const mails = [];
    for (let i = 0; i < 4; i++) mails.push(await sink.next());
    expect(mails.map(to).sort()).toEqual(["cfo@example.com", "drop@example.com", "rate@example.com", "spike@example.com"]);
    const spikeMail = mails.find((m) => to(m) === "spike@example.com")!;
    expect(spikeMail.subject).toBe(
      `Alert: More than 2 visitors in 5 minutes on /${(await t.call(`${P}/links/${link}`, { key })).body.data.short_code}`,
    );
    expect(spikeMail.text).toContain("visitors: 3");
    expect(spikeMail.html).toContain("<h1");
    const rateMail = mails.find((m) => to(m) === "rate@example.com")!;
    expect(rateMail.text).toContain("Value: 100"); // 0% in 24 hours against 2 of 5 visitors (40%) in 7 days
    expect(rateMail.text).toContain("rate 7d: 40");

    const list = (await t.call(`${P}/alerts`, { key })).body.data as {
      id: string;
      last_triggered_at: string | null;
      last_value: number | null;
    }[];
    const byId = new Map(list.map((x) => [x.id, x]));
    expect(byId.get(spike.id)!.last_value).toBe(3);
    expect(byId.get(drop.id)!.last_value).toBe(3);
    expect(byId.get(rate.id)!.last_value).toBe(100);
    expect(byId.get(calm.id)!.last_triggered_at).toBeNull();
    expect(byId.get(quiet.id)!.last_triggered_at).toBeNull();
    expect(sink.messages.length).toBe(4); // both rounds have finished: no alert was mailed twice
    expect(b.checked).toBeGreaterThanOrEqual(2);

    const delivered = await receiver.waitFor(
      (all) =>
        all.filter((r) => r.json?.event === "alert.triggered" && r.json.data.alert_id && list.some((x) => x.id === r.json.data.alert_id))
          .length >= 3,
    );
    const mine = delivered.filter((r) => list.some((x) => x.id === r.json?.data?.alert_id));
    expect(mine.map((r) => r.json.data.alert_id).sort()).toEqual([spike.id, drop.id, rate.id].sort());
    for (const r of mine) expect(verifySvcSignature(secret, r)).toBe(true);
    expect(mine.find((r) => r.json.data.alert_id === rate.id)!.json.data).toMatchObject({
      kind: "conversion_drop",
      value: 100,
      detail: { rate_24h: 0, rate_7d: 40, visitors_7d: 5, converters_7d: 2 },
    });

    // Within 12 hours nothing triggers again, though the figures still hold.
    const again = await checkAlerts({ ...deps, mailer: null });
    expect(again.triggered).toBe(0);
    expect(again.checked).toBeGreaterThanOrEqual(2); // calm and quiet are still armed
    // Twelve hours later (the claim's time moved back 13 hours) the spike triggers again, and only it.
    await t.runtime.deps.pg.db.execute(sql`UPDATE alerts SET last_triggered_at = now() - interval '13 hours' WHERE id = ${spike.id}`);
    const later = createMailer(sink.url, "Links <links@example.com>");
    expect(await checkAlerts({ ...deps, mailer: later })).toMatchObject({ triggered: 1 });
    later?.close();
    expect(to(await sink.next())).toBe("spike@example.com");
  }, 60_000);
});
