// A link's report period, as every journey query binds it.
export interface LinkRange {
  accountId: string;
  linkId: string;
  fromMs: number;
}

/** Rows keyed by their end (sessions, event bundles) with something in the period. */
export const ENDED_IN_RANGE =
  "account_id = {account:UUID} AND link_id = {link:UUID} AND ended >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')";

/** A page of a list report. */
export interface PageArgs {
  page: number;
  limit: number;
}
