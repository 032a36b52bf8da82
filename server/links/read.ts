// What other features may read of links: a shared dashboard of one link names it (a live link of the account).
export { findLink } from "./repository";
