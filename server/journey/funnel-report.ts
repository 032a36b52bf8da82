// What other features may read of the journey funnel: a shared dashboard (server/shares/) shows one
// link's funnel through the entry point the API's route calls. Not in read.ts, which the journey
// service itself imports (the re-export would make a cycle).
export { getFunnel } from "./service";
