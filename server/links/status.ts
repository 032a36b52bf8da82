// What the redirect does with a link, in one word: the rule the redirect applies (fast-path.ts and
// serve-link.ts), in the same order, so the console and the API never call a link that answers 410 "Active".
export const LINK_STATUSES = ["active", "inactive", "expired", "limit_reached"] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

export interface StatusFacts {
  isActive: boolean;
  expiresAt: Date | null;
  maxClicks: number | null;
  countedClicks: number;
}

export function linkStatus(l: StatusFacts, now = Date.now()): LinkStatus {
  if (!l.isActive) return "inactive";
  if (l.expiresAt !== null && l.expiresAt.getTime() <= now) return "expired";
  if (l.maxClicks !== null && l.countedClicks >= l.maxClicks) return "limit_reached";
  return "active";
}
