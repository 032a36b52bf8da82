// What other features may read of links: whether a link is the account's, the link ids a report's
// domain, campaign or tag covers, a link's facts and counts, and the journey ingest's ownership cache.
// Every answer is about live links: a deleted link, in the trash or purged, is none of these
// (docs/api.md "Deleted links in reports"). The rest of the links folder is its own business.
export {
  countLiveLinksOnDomain,
  countReportLinks,
  findLinkFacts,
  findLiveLinkIds,
  findLiveLinkIdsWhere,
  isLiveTag,
  type LinkCounts,
  type LinkFacts,
  type LinkSelection,
} from "./repository";
export { createLinkOwnership, type LinkOwnership } from "./ownership";
