// A seeded journey and click workload with awkward timing, for the accuracy test: sessions across
// the period starts, ties (events of the same millisecond, with different pages), events sent late
// (in later batches than the rest of their session), events dated a little ahead, conversions with
// and without revenue, explicit zeros, named page views, device changes within a session, visitors
// on several links, batches re-sent with the same idempotency key, visitors who arrived through a
// click (their visitor id is the click id). Everything is decided by the seed, relative to `now`.

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const PERIOD_HOURS = { "24h": 24, "7d": 7 * 24, "30d": 30 * 24, "90d": 90 * 24 } as const;
export type PeriodName = keyof typeof PERIOD_HOURS;
/** The period start the server uses: whole UTC hours. */
export const periodFrom = (period: PeriodName, nowMs: number) => Math.floor((nowMs - PERIOD_HOURS[period] * HOUR) / HOUR) * HOUR;

/** mulberry32: small, fast, and the same sequence everywhere. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]) => xs[int(xs.length)];
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}

export interface SentEvent {
  link_id: string;
  visitor_id: string;
  session_id?: string;
  event_type: "page_view" | "scroll_depth" | "time_on_page" | "custom" | "conversion";
  event_name?: string;
  page_url: string;
  page_title?: string;
  scroll_percent?: number;
  time_on_page?: number;
  timestamp: string;
  conversion_name?: string;
  revenue_cents?: number;
  currency?: string;
  country_code?: string;
  device_type?: "mobile" | "desktop" | "tablet";
  browser?: string;
  properties?: Record<string, string | number | boolean | null>;
}

export interface Batch {
  events: SentEvent[];
  idempotencyKey?: string;
  /** A repeat of an earlier batch under the same key: answered, not stored. */
  repeat?: boolean;
  /** Flush the spool after this batch (one more stored part in every table). */
  flushAfter?: boolean;
}

/** A click the workload spools with a chosen time (the click pipeline enriches it). */
export interface SentClick {
  click_id: string;
  ts: number;
  link: number;
  ip: string;
  ua: string;
  /** Index in CLICK_AGENTS, or -1 for a bot. */
  agent: number;
  referrer: string;
}

export const PAGES = Array.from({ length: 40 }, (_, i) => `https://shop.example/p/${i}`);
const CUSTOM = ["add_to_cart", "signup", "share", "video_play"];
const CONVERSIONS = ["purchase", "subscribe", ""];
const COUNTRIES = ["US", "de", "FR", "GB", "IN", "br", ""];
const DEVICES = ["mobile", "desktop", "tablet", undefined] as const;

export interface WorkloadOptions {
  seed: number;
  nowMs: number;
  linkIds: string[];
  sessions: number;
  visitors: number;
  days: number;
}

/**
 * The journey batches in the order they are sent. Sessions start at random over `days` days, a share
 * of them a few minutes before one of the period starts; ~4% of events are held back and sent after
 * the rest, 2% of batches are sent twice with one idempotency key.
 */
export function journeyBatches(o: WorkloadOptions, attributed: { visitorId: string; link: number; at: number }[]): Batch[] {
  const r = prng(o.seed);
  const starts = (Object.keys(PERIOD_HOURS) as PeriodName[]).map((p) => periodFrom(p, o.nowMs));
  const sessions: SentEvent[][] = [];
  const visitorOf = (i: number) => `visitor-${Math.floor(o.visitors * r.next() ** 1.6)}-${i % 3 === 0 ? "x" : "y"}`;
  for (let s = 0; s < o.sessions; s++) {
    const straddles = r.chance(0.06);
    const start = straddles ? r.pick(starts) - (1 + r.int(50)) * 60_000 : o.nowMs - r.next() * o.days * DAY;
    const attributedVisitor = s < attributed.length ? attributed[s] : undefined;
    const link = attributedVisitor ? attributedVisitor.link : r.chance(0.7) ? 0 : r.chance(0.8) ? 1 : 2;
    const visitor = attributedVisitor ? attributedVisitor.visitorId : visitorOf(s);
    sessions.push(sessionEvents(r, o, s, attributedVisitor ? Math.max(start, attributedVisitor.at + 60_000) : start, link, visitor));
  }
  // A few events dated ahead of now (accepted up to a day ahead).
  for (let i = 0; i < 20; i++) {
    const s = sessions[r.int(sessions.length)];
    const last = s[s.length - 1];
    s.push({ ...last, event_type: "custom", event_name: "ahead", timestamp: new Date(o.nowMs + (5 + r.int(600)) * 60_000).toISOString() });
  }
  const ordered = sessions.sort((a, b) => Date.parse(a[0].timestamp) - Date.parse(b[0].timestamp)).flat();
  const onTime: SentEvent[] = [];
  const late: SentEvent[] = [];
  for (const e of ordered) (r.chance(0.04) ? late : onTime).push(e);
  const batches: Batch[] = [];
  const cut = (events: SentEvent[]) => {
    for (let i = 0; i < events.length; ) {
      const n = 1 + r.int(100);
      batches.push({ events: events.slice(i, i + n) });
      i += n;
    }
  };
  cut(onTime);
  cut(late);
  const out: Batch[] = [];
  batches.forEach((b, i) => {
    const keyed = r.chance(0.3);
    const batch: Batch = { ...b, idempotencyKey: keyed ? `batch-${o.seed}-${i}` : undefined, flushAfter: i % 90 === 89 };
    out.push(batch);
    if (keyed && r.chance(0.07)) out.push({ ...batch, repeat: true, flushAfter: false });
  });
  out[out.length - 1].flushAfter = true;
  return out;
}

function sessionEvents(
  r: ReturnType<typeof prng>,
  o: WorkloadOptions,
  s: number,
  start: number,
  link: number,
  visitor: string,
): SentEvent[] {
  const sessionId = r.chance(0.03) ? undefined : `session-${s}`;
  let device = r.pick(DEVICES);
  const country = r.pick(COUNTRIES) || undefined;
  const n = 3 + r.int(18);
  let t = Math.round(start);
  let page = r.pick(PAGES);
  const events: SentEvent[] = [];
  const base = (type: SentEvent["event_type"]): SentEvent => ({
    link_id: o.linkIds[link],
    visitor_id: visitor,
    ...(sessionId ? { session_id: sessionId } : {}),
    event_type: type,
    page_url: page,
    timestamp: new Date(t).toISOString(),
    ...(country ? { country_code: country } : {}),
    ...(device ? { device_type: device } : {}),
  });
  for (let i = 0; i < n; i++) {
    // Ties: the same millisecond as the previous event, sometimes on another page.
    if (i > 0) t += r.chance(0.08) ? 0 : 500 + r.int(120_000);
    if (i === 0 || r.chance(0.3)) page = r.pick(PAGES);
    if (r.chance(0.02)) device = r.pick(DEVICES);
    const roll = r.next();
    let e: SentEvent;
    if (i === 0 || roll < 0.35) {
      e = {
        ...base("page_view"),
        ...(r.chance(0.1) ? { event_name: r.pick(CUSTOM) } : {}),
        ...(r.chance(0.3) ? { page_title: `Page ${page.slice(-2)}` } : {}),
      };
    } else if (roll < 0.55) e = { ...base("scroll_depth"), scroll_percent: r.pick([25, 50, 75, 100]) };
    else if (roll < 0.7) e = { ...base("time_on_page"), time_on_page: r.int(600) + r.pick([0, 0.5]) };
    else if (roll < 0.992)
      e = {
        ...base("custom"),
        event_name: r.pick(CUSTOM),
        ...(r.chance(0.05) ? { revenue_cents: r.chance(0.5) ? 0 : 100 + r.int(900) } : {}),
      };
    else e = conversion(r, base("conversion"));
    if (r.chance(0.05)) e.properties = { plan: r.pick(["free", "pro"]), n: r.int(10), ok: r.chance(0.5), none: null };
    events.push(e);
  }
  if (r.chance(0.09)) {
    t += 1000 + r.int(60_000);
    events.push(conversion(r, base("conversion")));
  }
  return events;
}

function conversion(r: ReturnType<typeof prng>, e: SentEvent): SentEvent {
  const name = r.pick(CONVERSIONS);
  const revenue = r.next();
  return {
    ...e,
    ...(name ? (r.chance(0.5) ? { conversion_name: name } : { event_name: name }) : {}),
    ...(revenue < 0.45 ? { revenue_cents: 100 + r.int(50_000), currency: "USD" } : revenue < 0.5 ? { revenue_cents: 0 } : {}),
  };
}

/** Browsers with a version each visitor varies (distinct visitors share ip, device, browser and OS). */
export const CLICK_AGENTS = [
  {
    ua: (v: number) => `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.${v}.0 Safari/537.36`,
    device: "desktop",
    browser: "Chrome",
    os: "Windows",
  },
  {
    ua: (v: number) => `Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:121.0) Gecko/20100101 Firefox/121.${v}`,
    device: "desktop",
    browser: "Firefox",
    os: "macOS",
  },
  {
    ua: (v: number) =>
      `Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.${v}.0 Mobile Safari/537.36`,
    device: "mobile",
    browser: "Mobile Chrome",
    os: "Android",
  },
] as const;
export const BOT_AGENTS = [
  "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  "curl/8.4.0",
];
/** Addresses whose country the bundled GeoLite2 database gives (as the enrichment tests show). */
export const CLICK_ADDRESSES = [
  { ip: "8.8.8.8", country: "US" },
  { ip: "81.2.69.142", country: "GB" },
  { ip: "2a00:1450:4001::1", country: "DE" },
  { ip: "133.242.0.1", country: "JP" },
  { ip: "200.160.2.3", country: "BR" },
  { ip: "5.45.207.1", country: "RU" },
] as const;
export const REFERRERS = [
  { url: "", host: "direct" },
  { url: "https://www.google.com/search?q=x", host: "www.google.com" },
  { url: "https://t.co/abc", host: "t.co" },
  { url: "https://news.ycombinator.com/item?id=1", host: "news.ycombinator.com" },
];

/**
 * Spooled clicks over `days` days (never within 30 minutes of midnight, where a visit keeps the
 * previous day's visitor), people and bots; the first `attributed` of them are followed by journey
 * events whose visitor id is the click id.
 */
export function spooledClicks(o: { seed: number; nowMs: number; days: number; count: number; links: number }): SentClick[] {
  const r = prng(o.seed ^ 0x5eed);
  const clicks: SentClick[] = [];
  for (let i = 0; i < o.count; i++) {
    const day = Math.floor(o.nowMs / DAY) * DAY - r.int(o.days) * DAY;
    const ts = Math.min(o.nowMs - 60_000, day + 31 * 60_000 + r.int(DAY - 62 * 60_000));
    clicks.push({ click_id: crypto.randomUUID(), ts, link: r.int(o.links), ...randomClicker(r) });
  }
  return clicks;
}

/** Who clicks: an address, a browser of some version (or a bot) and a referrer. */
export function randomClicker(r: ReturnType<typeof prng>) {
  const address = r.pick(CLICK_ADDRESSES);
  const agent = r.chance(0.08) ? -1 : r.int(CLICK_AGENTS.length);
  const ua = agent < 0 ? r.pick(BOT_AGENTS) : CLICK_AGENTS[agent].ua(r.int(60));
  return { ip: address.ip, ua, agent, referrer: r.pick(REFERRERS).url };
}
