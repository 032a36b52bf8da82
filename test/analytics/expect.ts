// The test's own arithmetic over the clicks it sent, to compare the endpoints against.
export interface SentClick {
  day: string;
  hour: number;
  ts: number;
  link: string;
  ip: string;
  ua: string;
  referrer: string;
  domain: string;
  country: string;
  device: string;
  browser: string;
  os: string;
  bot: boolean;
}

export interface Filter {
  start: string;
  end: string;
  bot: "real" | "bot" | "all";
  domain?: string;
}

export function select(clicks: SentClick[], f: Filter): SentClick[] {
  return clicks.filter(
    (c) =>
      c.day >= f.start &&
      c.day <= f.end &&
      (f.bot === "all" || (f.bot === "bot") === c.bot) &&
      (f.domain === undefined || c.domain === f.domain),
  );
}

/** Visitors rotate daily: one visitor is (day, address, agent). */
export const visitors = (clicks: SentClick[]) => new Set(clicks.map((c) => `${c.day}|${c.ip}|${c.ua}`)).size;

export function groupCount<K extends string, C extends SentClick>(clicks: C[], key: (c: C) => K) {
  const groups = new Map<K, C[]>();
  for (const c of clicks) groups.set(key(c), [...(groups.get(key(c)) ?? []), c]);
  return groups;
}

/** Rows sorted like the API: clicks descending, then by label. */
export function breakdown<C extends SentClick>(clicks: C[], key: (c: C) => string, withVisitors = true) {
  return [...groupCount(clicks, key)]
    .map(([k, cs]) => ({ key: k, clicks: cs.length, ...(withVisitors ? { unique_visitors: visitors(cs) } : {}) }))
    .sort((a, b) => b.clicks - a.clicks || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
