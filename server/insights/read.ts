// What other features may read of the insight reports: the shared dashboards (server/shares/) show a
// link's paths and retention through the entry points the API's routes call.
export { getPaths, getRetention, type InsightDeps, type PathsQueryArgs } from "./service";
