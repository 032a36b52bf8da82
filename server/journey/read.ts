// What other features may read of journey data (the conversion reports and the console's account page):
// the visitor counts and the month's stored usage; a shared dashboard (server/shares/) shows one link's
// funnel through the entry point the API's route calls; alerts (server/alerts/) count the visitors of the last
// minutes or hours from the bundles (a window that starts inside an hour), and the mailed reports the
// account's top pages of whole days. The rest of the journey folder (service, repository,
// query modules) is its own business; which links a report covers is the links feature's answer
// (server/reports/scope.ts). The retention report (server/insights/) reads the per-visitor state
// the journey job stores, and so does the paths report (its per-visitor paths of closed hours).
export { readJourneyUsage } from "./repository";
export { getFunnel } from "./service";
export { queryRetentionStored } from "./retention-state-query";
export { retentionIndexReader, type RetentionIndexReader } from "./retention-index";
export {
  BUNDLE_EVENT_TYPES,
  notePathsWindow,
  pathIndexHeld,
  queryPathsRaw,
  queryPathsStored,
  type PathRow,
  type PathsArgs,
} from "./path-state-query";
export { countFromBundles, countJourneyVisitors, countJourneyVisitorsByLink, countSummaryVisitors } from "./visitors-query";
export { getAccountTopPages, type TopPage } from "./top-pages-query";
export type { Beside } from "./summary-index-query";
