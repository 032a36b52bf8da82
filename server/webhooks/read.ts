// What other features may read of webhooks: the console's account page counts the endpoints against the tier's limit.
export { countEndpoints } from "./repository";
