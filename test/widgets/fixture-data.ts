// The fixture server's two accounts: deterministic rows in API_SPEC.md's shapes, derived from the
// query (days, bot_filter, period, link) so that changing an attribute changes what a widget shows.

export const LINK = '0b6f3c1e-4a2d-4c59-9a7e-1d2b3c4d5e6f';
export const QUIET = '7c1d2e3f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
export const LINKS = [
  { id: LINK, short_code: 'launch', short_url: 'http://127.0.0.1/launch', original_url: 'https://example.com/landing?utm=1&x=<y>', title: 'Launch page' },
  { id: QUIET, short_code: 'quiet', short_url: 'http://127.0.0.1/quiet', original_url: 'https://example.com/quiet', title: '' },
];

const ymd = (d: Date) => d.toISOString().slice(0, 10);
export function lastDays(n: number): string[] {
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  return Array.from({ length: n }, (_, i) => ymd(new Date(today - (n - 1 - i) * 86400000)));
}
/** Deterministic daily clicks; bot traffic is a tenth of human, 'all' the sum. */
function dayClicks(i: number, bot: string): number {
  const human = 100 + ((i * 37) % 50) * 3;
  const bots = 10 + ((i * 11) % 7);
  return bot === 'bot' ? bots : bot === 'all' ? human + bots : human;
}
const scale = (v: number, bot: string) => (bot === 'bot' ? Math.round(v / 10) : bot === 'all' ? v + Math.round(v / 10) : v);

export function timeseries(days: number, bot: string, empty: boolean) {
  return lastDays(days).map((date, i) => {
    const clicks = empty ? 0 : dayClicks(i, bot);
    return { date, clicks, unique_visitors: Math.floor(clicks * 0.6) };
  });
}

export function summary(days: number, bot: string, empty: boolean) {
  const ts = timeseries(days, bot, empty);
  const total = ts.reduce((s, r) => s + r.clicks, 0);
  if (empty)
    return { total_clicks: 0, unique_visitors: 0, total_links: 0, last_click_at: null, today_clicks: 0, yesterday_clicks: 0, active_links: 0, total_links_count: 0, links_this_month: 0, clicks_this_month: 0 };
  return {
    total_clicks: total,
    unique_visitors: Math.floor(total * 0.55),
    total_links: 2,
    last_click_at: `${ts[ts.length - 1].date}T00:30:00.000Z`,
    today_clicks: ts[ts.length - 1].clicks,
    yesterday_clicks: ts.length > 1 ? ts[ts.length - 2].clicks : 0,
    active_links: 2,
    total_links_count: 3,
    links_this_month: 1,
    clicks_this_month: 4321,
  };
}

export const usage = (empty: boolean) =>
  empty
    ? { clicks_this_month: 0, click_limit: 1000, limit_exceeded: false, tier: 'free', retention_days: 30 }
    : { clicks_this_month: 4321, click_limit: 100000, limit_exceeded: false, tier: 'growth', retention_days: 365 };

const GEO = [
  ['US', 5000, 2500],
  ['DE', 3210, 1500],
  ['GB', 1234, 800],
  ['FR', 999, 500],
  ['JP', 12, 10],
  ['XX', 7, 7],
] as const;
const DEVICES = [
  ['desktop', 'Chrome', 'Windows', 4000],
  ['mobile', 'Safari', 'iOS', 3000],
  ['mobile', 'Chrome', 'Android', 1500],
  ['tablet', 'Safari', 'iPadOS', 250],
  ['desktop', 'Firefox', 'Linux', 99],
] as const;
const REFERRERS = [
  ['direct', 6000, 4000],
  ['google.com', 3000, 2000],
  ['news.ycombinator.com', 1200, 1100],
  ['x.com', 345, 300],
  ['<img src=x onerror=alert(1)>.example', 5, 5],
] as const;

export function breakdown(dim: string, bot: string, empty: boolean) {
  if (dim === 'hourly')
    return Array.from({ length: 24 }, (_, hour) => {
      const clicks = empty ? 0 : scale(((hour * 53) % 97) + (hour >= 9 && hour <= 17 ? 200 : 0), bot);
      return { hour, clicks, unique_visitors: Math.floor(clicks * 0.7) };
    });
  if (empty) return [];
  if (dim === 'geo') return GEO.map(([country_code, c, u]) => ({ country_code, clicks: scale(c, bot), unique_visitors: scale(u, bot) }));
  if (dim === 'devices') return DEVICES.map(([device_type, browser, os, c]) => ({ device_type, browser, os, clicks: scale(c, bot) }));
  return REFERRERS.map(([referrer, c, u]) => ({ referrer, clicks: scale(c, bot), unique_visitors: scale(u, bot) }));
}

export const PERIOD_DAYS: Record<string, number> = { '24h': 1, '7d': 7, '30d': 30, '90d': 90 };

export function funnel(steps: string[], period: string, quiet: boolean) {
  const keep = [0.42, 0.35, 0.5, 0.6];
  let visitors = quiet ? 0 : 1000 * (PERIOD_DAYS[period] >= 30 ? 1 : 0.25);
  let prev = visitors;
  const rows = steps.map((step_name, i) => {
    if (i) visitors = Math.floor(prev * keep[(i - 1) % keep.length]);
    const conversion_rate = i === 0 ? 100 : prev ? Math.round((visitors / prev) * 1000) / 10 : 0;
    prev = visitors;
    return { step_name, visitors, conversion_rate };
  });
  return { steps: rows, total_visitors: quiet ? 0 : 1234 };
}

export function conversions(path: string, q: URLSearchParams, empty: boolean) {
  const perLink = q.get('link_id') === LINK;
  const none = empty || q.get('link_id') === QUIET;
  if (path === 'summary')
    return none
      ? { total_conversions: 0, unique_converters: 0, total_revenue: 0, average_order_value: 0, conversion_rate: 0 }
      : perLink
        ? { total_conversions: 120, unique_converters: 110, total_revenue: 5400.25, average_order_value: 45, conversion_rate: 4.8 }
        : { total_conversions: 321, unique_converters: 290, total_revenue: 15432.5, average_order_value: 48.08, conversion_rate: 2.6 };
  if (path === 'timeseries')
    return lastDays(PERIOD_DAYS[q.get('period') || '30d']).map((d, i) => {
      const c = none ? 0 : (i * 7) % 13;
      return { timestamp: `${d}T00:00:00Z`, conversions: c, revenue: c * 45.5 };
    });
  const counts = none ? [0, 0, 0, 0] : [120, 90, 80, 31];
  return {
    buckets: ['under 1 hour', '1-24 hours', '1-7 days', '7+ days'].map((label, i) => ({ label, count: counts[i] })),
    average_seconds: none ? 0 : 93784,
    median_seconds: none ? 0 : 5400,
  };
}

export function linkStats(id: string) {
  if (id === QUIET)
    return { short_code: 'quiet', original_url: LINKS[1].original_url, total_clicks: 0, unique_visitors: 0, bot_clicks: 0, human_clicks: 0, last_accessed_at: null, is_active: true, days_active: 3, average_clicks_per_day: 0, conversion_rate: 0 };
  return {
    short_code: 'launch',
    original_url: LINKS[0].original_url,
    total_clicks: 2500,
    unique_visitors: 1800,
    bot_clicks: 300,
    human_clicks: 2200,
    last_accessed_at: '2025-06-01T12:34:56.000Z',
    is_active: true,
    days_active: 45,
    average_clicks_per_day: 55.56,
    conversion_rate: 3.2,
  };
}

