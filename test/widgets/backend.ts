// The real server for the widget tests and the dashboard end-to-end test: a test app on a loopback
// port, seeded only through the public API (links via POST /links, clicks via real redirects,
// journey events via POST /journey/events), with the kinds of keys the widgets must cope with.
import { createTestApp, listen, type TestApp } from "../helpers/app";

export interface Backend {
  /** {origin}/public-api/v1 */
  base: string;
  origin: string;
  keys: {
    /** Read-only key (analytics, journey, conversions, links) of the account with data. */
    full: string;
    /** Same scopes, an account without any click, link or event. */
    empty: string;
    noAnalytics: string;
    noJourney: string;
    noConversions: string;
    noLinks: string;
    /** Allowlisted for 10.9.9.9 only, so requests from 127.0.0.1 are refused. */
    ipBlocked: string;
    /** Well-formed but unknown. */
    invalid: string;
    /** A Free-tier key whose hourly budget is spent. */
    rateLimited: string;
  };
  /** A link of the full account with clicks, journey events and conversions. */
  linkId: string;
  /** A link of the full account without any traffic. */
  quietLinkId: string;
  /** An id that is nobody's link. */
  unknownLinkId: string;
  /** Event names that form a funnel on linkId. */
  funnelSteps: string[];
  /** The app behind it (for tests that need more than HTTP). */
  app: TestApp;
  stop(): Promise<void>;
}

const P = "/public-api/v1";
export const READ = ["analytics:read", "journey:read", "conversions:read", "links:read"];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const UAS = [
  ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36", 9],
  [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
    6,
  ],
  ["Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:121.0) Gecko/20100101 Firefox/121.0", 4],
  ["Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36", 3],
  ["Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 Mobile/15E148 Safari/604.1", 1],
] as const;
const COUNTRIES = [
  ["US", 11],
  ["DE", 6],
  ["GB", 4],
  ["FR", 3],
  ["JP", 2],
  ["BR", 1],
] as const;
// '' is direct traffic; the last one tries markup through the Referer header.
const REFERRERS = [
  ["", 8],
  ["https://news.ycombinator.com/item?id=1", 5],
  ["https://www.google.com/", 4],
  ["https://t.co/abc", 2],
  ["https://x.example/<img src=x onerror=alert(1)>", 1],
] as const;
const BOTS = [
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
];

/** The i-th item of a weighted list, cycling: deterministic and uneven, so no two rows tie. */
function pick<T>(list: readonly (readonly [T, number])[], i: number): T {
  const total = list.reduce((s, [, w]) => s + w, 0);
  let n = (i * 7) % total;
  for (const [v, w] of list) if ((n -= w) < 0) return v;
  return list[0][0];
}

async function must(res: { status: number; body: any }, what: string, status = 201) {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Real redirects from distinct visitors; returns the click ids svc_ref carried (track_conversions links). */
async function visit(origin: string, code: string, count: number, offset: number, bot = false): Promise<string[]> {
  const clickIds: string[] = [];
  for (let start = 0; start < count; start += 50) {
    const batch = Array.from({ length: Math.min(50, count - start) }, async (_, j) => {
      const i = offset + start + j;
      const headers: Record<string, string> = {
        "user-agent": bot ? BOTS[i % BOTS.length] : pick(UAS, i),
        "x-forwarded-for": `203.0.${(i % 400) >> 8}.${i % 256}`,
        "cf-ipcountry": pick(COUNTRIES, i),
        "accept-language": "en-US,en;q=0.9",
      };
      const referer = pick(REFERRERS, i);
      if (referer) headers.referer = referer;
      const res = await fetch(`${origin}/${code}`, { redirect: "manual", headers });
      await res.arrayBuffer();
      if (res.status !== (bot ? 200 : 302)) throw new Error(`redirect /${code}: ${res.status}`);
      const ref = res.headers.get("location") && new URL(res.headers.get("location")!).searchParams.get("svc_ref");
      if (ref) clickIds.push(ref.split(".")[1]);
    });
    await Promise.all(batch);
  }
  return clickIds;
}

interface Journey {
  visitor: string;
  linkId: string;
  views: number;
  signupAt?: number;
  purchase?: { at: number; cents: number };
  firstAt: number;
}

function journeyEvents(j: Journey) {
  const base = { link_id: j.linkId, visitor_id: j.visitor, session_id: `s-${j.visitor}`, device_type: "desktop" as const };
  const iso = (ms: number) => new Date(ms).toISOString();
  const events: Record<string, unknown>[] = [];
  for (let v = 0; v < j.views; v++) {
    events.push({
      ...base,
      event_type: "page_view",
      page_url: v ? "https://shop.example/pricing" : "https://shop.example/spring",
      timestamp: iso(j.firstAt + v * MINUTE),
    });
    events.push({
      ...base,
      event_type: "scroll_depth",
      scroll_percent: 50,
      page_url: "https://shop.example/spring",
      timestamp: iso(j.firstAt + v * MINUTE + 5000),
    });
  }
  if (j.signupAt)
    events.push({
      ...base,
      event_type: "custom",
      event_name: "signup",
      page_url: "https://shop.example/signup",
      timestamp: iso(j.signupAt),
    });
  if (j.purchase) {
    events.push({
      ...base,
      event_type: "conversion",
      event_name: "purchase",
      conversion_name: "purchase",
      page_url: "https://shop.example/checkout",
      revenue_cents: j.purchase.cents,
      currency: "USD",
      timestamp: iso(j.purchase.at),
    });
  }
  return events;
}

async function postJourney(app: TestApp, key: string, journeys: Journey[]) {
  const events = journeys.flatMap(journeyEvents);
  for (let i = 0; i < events.length; i += 100) {
    await must(
      await app.call(`${P}/journey/events`, { method: "POST", key, json: { events: events.slice(i, i + 100) } }),
      "journey events",
      202,
    );
  }
}

/** Starts our server and seeds it. About 1,100 clicks: enough for thousands separators. */
export async function startBackend(opts: { baseUrl?: string } = {}): Promise<Backend> {
  const app = await createTestApp({}, { TRUST_PROXY: "true", ...(opts.baseUrl ? { BASE_URL: opts.baseUrl } : {}) });
  const server = listen(app);
  const origin = server.url;
  try {
    const owner = await app.createAccount({ tier: "pro", scopes: ["links:write", "journey:write"] });
    const newKey = async (scopes: string[], allowed_ips?: string[]) =>
      (await must(await app.admin("POST", `/accounts/${owner.accountId}/keys`, { name: "widgets", scopes, allowed_ips }), "key"))
        .key as string;
    const createLink = async (json: Record<string, unknown>) =>
      must(await app.call(`${P}/links`, { method: "POST", key: owner.key, json: { description: "seeded", ...json } }), "link");

    // Oldest first: the list is newest first, so the dashboard opens on the spring sale.
    const quiet = await createLink({ url: "https://example.com/quiet", title: "Not shared yet" });
    const news = await createLink({ url: "https://news.example/issue-42", title: "Newsletter #42", tags: ["newsletter"] });
    const docs = await createLink({ url: "https://docs.example/start", title: "Getting started" });
    const spring = await createLink({ url: "https://shop.example/spring?ref=launch&x=<y>", title: "Spring sale", track_conversions: true });

    const clickIds = await visit(origin, spring.short_code, 620, 0);
    await visit(origin, docs.short_code, 340, 620);
    await visit(origin, news.short_code, 95, 960);
    await visit(origin, spring.short_code, 14, 0, true);

    // Journeys: 60 visitors who came through the spring link just now (their visitor id is the
    // click id), a third sign up and a third of those buy within minutes of their click (so their
    // events are stamped a few minutes ahead); a few earlier visitors convert days later (no click
    // of theirs in this window), and two buy through the docs link.
    const now = Date.now();
    const journeys: Journey[] = clickIds.slice(0, 60).map((visitor, i) => ({
      visitor,
      linkId: spring.id,
      views: 1 + (i % 3),
      firstAt: now + i * 200,
      signupAt: i % 3 === 0 ? now + i * 200 + 3 * MINUTE : undefined,
      purchase: i % 9 === 0 ? { at: now + i * 200 + 4 * MINUTE + i * 3000, cents: 1999 + i * 100 } : undefined,
    }));
    const earlier: [number, number, number][] = [
      [9 * DAY, 8 * DAY, 2 * HOUR],
      [6 * DAY, 5 * DAY, 3 * DAY],
      [3 * DAY, 2 * DAY, 1 * DAY],
      [5 * HOUR, 3 * HOUR, 1 * HOUR],
      [30 * HOUR, 29 * HOUR, 26 * HOUR],
    ];
    earlier.forEach(([first, signup, buy], i) =>
      journeys.push({
        visitor: `earlier-${i}`,
        linkId: spring.id,
        views: 2,
        firstAt: now - first,
        signupAt: now - signup,
        purchase: { at: now - buy, cents: 4900 + i * 1250 },
      }),
    );
    for (let i = 0; i < 2; i++)
      journeys.push({
        visitor: `docs-${i}`,
        linkId: docs.id,
        views: 1,
        firstAt: now - 4 * DAY,
        purchase: { at: now - (3 - i) * DAY, cents: 990 },
      });
    await postJourney(app, owner.key, journeys);
    await app.flush();

    const full = await newKey(READ);
    const keys = {
      full,
      empty: (await app.createAccount({ tier: "pro", scopes: READ })).key,
      noAnalytics: await newKey(READ.filter((s) => s !== "analytics:read")),
      noJourney: await newKey(READ.filter((s) => s !== "journey:read")),
      noConversions: await newKey(READ.filter((s) => s !== "conversions:read")),
      noLinks: await newKey(READ.filter((s) => s !== "links:read")),
      ipBlocked: await newKey(READ, ["10.9.9.9"]),
      invalid: `svc_${"0".repeat(28)}`,
      rateLimited: await spentKey(app),
    };
    return {
      origin,
      base: origin + P,
      keys,
      app,
      linkId: spring.id,
      quietLinkId: quiet.id,
      unknownLinkId: "00000000-0000-4000-8000-000000000000",
      funnelSteps: ["page_view", "signup", "purchase"],
      async stop() {
        await server.stop();
        await app.close();
      },
    };
  } catch (e) {
    await server.stop();
    await app.close();
    throw e;
  }
}

/** A Free-tier key (50 requests an hour) that has used its hour. */
async function spentKey(app: TestApp): Promise<string> {
  const { key } = await app.createAccount({ tier: "free", scopes: READ });
  for (let i = 0; i < 60; i++) {
    const res = await app.request(`${P}/links?per_page=1`, { key });
    await res.arrayBuffer();
    if (res.status === 429) return key;
  }
  throw new Error("the Free-tier key never hit its rate limit");
}
