// What other features may read of campaigns: the links feature checks that a link's campaign is the
// account's; a shared dashboard names its campaign.
export { findCampaign, isAccountCampaign } from "./repository";
