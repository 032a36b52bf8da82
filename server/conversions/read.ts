// What other features may read of the conversion reports: a shared dashboard (server/shares/) shows
// the summary, the timeseries and the time to convert through the same entry points as the API's routes.
export { getConversionSummary, getConversionTimeseries, getTimeToConvert } from "./service";
