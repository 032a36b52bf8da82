// What other features may read of links: whether a link is the account's, the link ids a report's
// domain, campaign or tag covers, a link's facts and counts, and the journey ingest's ownership cache;
// a shared dashboard of one link names it (`findLink`: the account's live link, its title included).
// Every answer but the exports' short codes (findLinkCodes) is about live links: a deleted link, in the
// trash or purged, is none of these
// (docs/api.md "Deleted links in reports"); the attribution report labels any link of the account
// (findLinkLabels: short code and campaign, deleted links included). The rest of the links folder is its own business.
export {
  countLiveLinksOnDomain,
  countReportLinks,
  findLinkCodes,
  findLink,
  findLinkFacts,
  findLinkLabels,
  findLiveLinkIds,
  findLiveLinkIdsWhere,
  isLiveTag,
  type LinkCodes,
  type LinkCounts,
  type LinkFacts,
  type LinkLabel,
  type LinkSelection,
} from "./repository";
export { createLinkOwnership, type LinkOwnership } from "./ownership";
