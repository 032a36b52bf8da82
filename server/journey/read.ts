// What other features may read of journey data (the conversion reports and the console's account page):
// the report period, the links a scope covers, the visitor counts and the month's stored usage. The
// rest of the journey folder (service, repository, query modules) is its own business.
import { PERIODS, type Period } from "./model";

export { findDomainLinkIds, isOwnedLink, readJourneyUsage } from "./repository";
export { countJourneyVisitors, countJourneyVisitorsByLink } from "./visitors-query";

const HOUR_MS = 3_600_000;
/** Periods are whole UTC hours (the rollups' grain): 24h is the current hour and the 24 before it. */
export const periodStartMs = (period: Period = "30d", nowMs = Date.now()) =>
  Math.floor((nowMs - PERIODS[period] * 1000) / HOUR_MS) * HOUR_MS;
