// What other features may read of campaigns: the links feature checks that a link's campaign is the
// account's; a shared dashboard names its campaign; the attribution report names every campaign.
export { findCampaign, isAccountCampaign, listAccountCampaigns } from "./repository";
