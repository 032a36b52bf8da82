// What other features may read of realtime: the shared dashboards (server/shares/) show the clicks of
// the last 30 minutes of their account, campaign or link through the entry point the API's route calls.
export { realtimeDepsOf, type RealtimeParts } from "./deps";
export { getClicksRealtime, type RealtimeDeps } from "./service";
