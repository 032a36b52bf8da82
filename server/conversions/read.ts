// What other features may read of the conversion reports: a shared dashboard (server/shares/) shows
// the summary, the timeseries, the time to convert and attribution through the same entry points as the
// API's routes.
export { getConversionSummary, getConversionTimeseries, getTimeToConvert } from "./service";
export { getAttribution, type AttributionQueryInput } from "./attribution-service";
export { refreshConversionIndexes } from "./closed-index-job";
