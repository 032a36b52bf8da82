// A link's report period, as every journey query binds it.
export interface LinkRange {
  accountId: string;
  linkId: string;
  fromMs: number;
  /** A compared past window's end (exclusive, a whole hour); none: up to now and beyond. Bound as {to:Int64}. */
  toMs?: number;
}

/** Rows keyed by their end (sessions, event bundles) with something in the period. */
export const ENDED_IN_RANGE =
  "account_id = {account:UUID} AND link_id = {link:UUID} AND ended >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')";

/** With an end: bundles with an event in [from, to) (their times are ms offsets from `started`). */
const BEFORE_END =
  " AND started < fromUnixTimestamp64Milli({to:Int64}, 'UTC') AND arrayExists(o -> toUnixTimestamp64Milli(started) + o >= {from:Int64} AND toUnixTimestamp64Milli(started) + o < {to:Int64}, times)";
/** Bundles with an event in the range. */
export const bundlesInRange = (r: LinkRange) => (r.toMs === undefined ? ENDED_IN_RANGE : ENDED_IN_RANGE + BEFORE_END);

/** A page of a list report. */
export interface PageArgs {
  page: number;
  limit: number;
}
