// The weekly report as a subscriber gets it: the figures of the week with their change against the week
// before, counted here from what the test sent; the mail through a real SMTP server on loopback, parsed;
// the unsubscribe link working without signing in; the signed `report.sent` event; one send per period.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";
import { createLink, rawClick, spoolClicks, UA } from "../analytics/helpers";
import { pageView, postEvents } from "../journey/helpers";
import { startReceiver, verifySvcSignature, type Receiver } from "../webhooks/receiver";
import { sendReports } from "../../server/alerts/service";
import { createMailer } from "../../server/mail/mailer";

const P = "/public-api/v1";
const DAY = 86_400_000;
let t: TestApp;
let sink: SmtpSink;
let receiver: Receiver;

beforeAll(async () => {
  sink = await startSmtpSink();
  receiver = startReceiver();
  t = await createTestApp(
    {},
    { SMTP_URL: sink.url, MAIL_FROM: "Links <links@example.com>", WEBHOOK_ALLOW_INSECURE: "true", TRUST_PROXY: "true" },
    { jobs: ["webhooks"] },
  );
}, 60_000);
afterAll(async () => {
  await t.close();
  await sink.stop();
  receiver.stop();
});

const mondayOf = (ms: number) => {
  const day = Math.floor(ms / DAY) * DAY;
  return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY;
};

test("the weekly report: figures and changes as sent, top lists (pages from the journey page views), a working unsubscribe link, one send per week", async () => {
  const { key, accountId } = await t.createAccount();
  const hook = await t.call(`${P}/webhooks`, { method: "POST", key, json: { url: receiver.url, events: ["report.sent"] } });
  const secret = hook.body.data.secret as string;
  const a = await createLink(t, key, "https://shop.example/spring");
  const b = await createLink(t, key, "https://shop.example/autumn");
  await t.call(`${P}/links/${a.id}`, { method: "PATCH", key, json: { title: 'Spring <sale> & "more"' } });

  const now = Date.now();
  const thisWeek = Math.max(mondayOf(now), now - 60_000);
  const lastWeek = mondayOf(now) - 3 * DAY;
  let ip = 1;
  const click = (link: string, ts: number, referrer: string, country: string) =>
    rawClick({ account_id: accountId, link_id: link, ts, ip: `81.2.69.${ip++}`, ua: UA.windowsChrome, referrer, geo_country: country });
  await spoolClicks(t, [
    click(a.id, thisWeek, "https://news.example/item", "DE"),
    click(a.id, thisWeek, "https://news.example/item", "DE"),
    click(a.id, thisWeek, "https://news.example/other", "DE"),
    click(a.id, thisWeek, "", "FR"),
    click(a.id, thisWeek, "", "FR"),
    click(b.id, thisWeek, "https://blog.example/", "US"),
    click(b.id, thisWeek, "https://blog.example/", "US"),
    ...[1, 2, 3, 4].map(() => click(a.id, lastWeek, "", "DE")),
  ]);
  const conversion = (v: string, ts: number, cents: number) => ({
    ...pageView(a.id, v, { timestamp: new Date(ts).toISOString() }),
    event_type: "conversion",
    conversion_name: "order",
    revenue_cents: cents,
  });
  expect(
    (await postEvents(t, key, [conversion("c1", thisWeek, 1000), conversion("c2", thisWeek, 2550), conversion("c3", lastWeek, 1000)]))
      .status,
  ).toBeLessThan(300);
  // Page views: this week's across both links (one URL to escape), last week's and another account's left out.
  const view = (link: string, v: string, ts: number, url: string) =>
    pageView(link, v, { timestamp: new Date(ts).toISOString(), page_url: url });
  const odd = "https://shop.example/<b>?q=1&x";
  const views = [
    ...["p1", "p2", "p3"].map((v) => view(a.id, v, thisWeek, "https://shop.example/pricing")),
    view(b.id, "p4", thisWeek, odd),
    view(b.id, "p5", thisWeek, odd),
    view(a.id, "p6", thisWeek, "https://shop.example/"),
    ...["p7", "p8", "p9", "p10"].map((v) => view(a.id, v, lastWeek, "https://shop.example/old")),
  ];
  expect((await postEvents(t, key, views)).status).toBeLessThan(300);
  const stranger = await t.createAccount();
  const theirs = await createLink(t, stranger.key, "https://elsewhere.example/");
  const theirViews = ["s1", "s2", "s3", "s4"].map((v) => view(theirs.id, v, thisWeek, "https://elsewhere.example/theirs"));
  expect((await postEvents(t, stranger.key, theirViews)).status).toBeLessThan(300);
  await t.flush();

  const sub = await t.call(`${P}/report-subscriptions`, { method: "POST", key, json: { email: "Boss@Example.com", weekly: true } });
  expect(sub.status).toBe(201);
  expect(sub.body.data).toMatchObject({ email: "boss@example.com", weekly: true, monthly: false });
  expect((await t.call(`${P}/report-subscriptions`, { method: "POST", key, json: { email: "boss@example.com" } })).status).toBe(409);
  const bad = await t.call(`${P}/report-subscriptions`, { method: "POST", key, json: { email: "nope" } });
  expect(bad.status).toBe(400);
  expect(JSON.stringify(bad.body.error)).toContain("email");
  const other = await t.createAccount();
  expect((await t.call(`${P}/report-subscriptions/${sub.body.data.id}`, { key: other.key })).status).toBe(404);
  // An empty change changes nothing (it once failed with a 500: an UPDATE with nothing to set).
  const unchanged = await t.call(`${P}/report-subscriptions/${sub.body.data.id}`, { method: "PATCH", key, json: {} });
  expect(unchanged.status).toBe(200);
  expect(unchanged.body.data).toEqual(sub.body.data);

  // The week that ends next is this one: sending as of next week sends it.
  const mailer = createMailer(sink.url, "Links <links@example.com>");
  const deps = {
    pg: t.runtime.deps.pg,
    ch: t.runtime.deps.ch,
    baseUrl: t.config.baseUrl,
    appSecret: t.config.appSecret,
    mailer,
    logger: t.runtime.deps.logger,
  };
  expect(await sendReports(deps, now)).toEqual({ sent: 0 }); // this week has not ended
  const [first, second] = await Promise.all([sendReports(deps, now + 7 * DAY), sendReports(deps, now + 7 * DAY)]);
  expect(first.sent + second.sent).toBe(1);
  mailer?.close();
  const mail = await sink.next();
  expect(sink.messages.length).toBe(1);
  expect((mail.to as { text: string }).text).toBe("boss@example.com");
  expect(mail.subject).toStartWith("Weekly report for test: ");
  const text = mail.text ?? "";
  expect(text).toContain("Clicks: 7 (+75% vs 4)");
  expect(text).toContain("Visitors: 7 (+75% vs 4)");
  expect(text).toContain("Conversions: 2 (+100% vs 1)");
  expect(text).toContain("Revenue: 35.50 (+255% vs 10.00)");
  expect(text).toContain(`Top links:\n  Spring <sale> & "more" (/${a.short_code}): 5\n  t (/${b.short_code}): 2\n`);
  expect(text).toContain("Top sources:\n  news.example: 3\n  blog.example: 2\n  direct: 2\n");
  expect(text).toContain("Top countries:\n  DE: 3\n  FR: 2\n  US: 2\n");
  expect(text).toContain(`Top pages (views):\n  https://shop.example/pricing: 3\n  ${odd}: 2\n  https://shop.example/: 1\n\n`);
  const html = String(mail.html);
  expect(html).toContain("Spring &#60;sale&#62; &#38; &#34;more&#34;");
  expect(html).not.toContain("<sale>");
  expect(html).toContain("Top pages (views)");
  expect(html).toContain("https://shop.example/&#60;b&#62;?q=1&#38;x");
  expect(html).not.toContain("<b>");
  expect(html).not.toContain("theirs");

  const event = (
    await receiver.waitFor((all) => all.some((r) => r.json?.event === "report.sent" && r.json.data.subscription_id === sub.body.data.id))
  ).find((r) => r.json.data.subscription_id === sub.body.data.id)!;
  expect(verifySvcSignature(secret, event)).toBe(true);
  expect(event.json.data).toMatchObject({
    frequency: "weekly",
    period: { start: new Date(mondayOf(now)).toISOString().slice(0, 10) },
    clicks: { current: 7, previous: 4, change_percent: 75 },
    revenue: { current: 35.5, previous: 10, change_percent: 255 },
    top_pages: [
      { url: "https://shop.example/pricing", views: 3 },
      { url: odd, views: 2 },
      { url: "https://shop.example/", views: 1 },
    ],
  });

  // The unsubscribe link: a GET shows a button only, the POST unsubscribes, without signing in.
  const link = text.match(/Unsubscribe: (\S+)/)![1];
  expect(html).toContain(link);
  expect(mail.headerLines.find((h) => h.key === "list-unsubscribe")?.line.replace(/\s+/g, " ")).toBe(`List-Unsubscribe: <${link}>`);
  const path = new URL(link).pathname;
  const page = await t.request(path);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("boss@example.com");
  expect((await t.call(`${P}/report-subscriptions`, { key })).body.data).toHaveLength(1);
  const done = await t.request(path, {
    method: "POST",
    body: "List-Unsubscribe=One-Click",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  const doneText = await done.text();
  expect(`${done.status} ${doneText}`).toStartWith("200");
  expect(doneText).toContain("Unsubscribed");
  expect((await t.call(`${P}/report-subscriptions`, { key })).body.data).toEqual([]);
  expect((await t.request(path, { method: "POST" })).status).toBe(404);
  expect((await t.request(`/unsubscribe/uns_${"A".repeat(43)}`)).status).toBe(404);
}, 90_000);
