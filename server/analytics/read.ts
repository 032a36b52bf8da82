// What other features may read of click analytics: the links list sorts by people's clicks per link;
// a shared dashboard (server/shares/) shows the account reports and one link's stats, through the
// same entry points as the API's routes.
export { getAccountLinkClicks } from "./queries/link-days";
export {
  getDevicesReport,
  getGeoReport,
  getHourlyReport,
  getLinkStats,
  getReferrersReport,
  getSummaryReport,
  getTimeseriesReport,
} from "./service";
