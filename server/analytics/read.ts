// What other features may read of click analytics: the links list sorts by people's clicks per link.
export { getAccountLinkClicks } from "./queries/link-days";
