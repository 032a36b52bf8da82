// The events an endpoint can subscribe to. This module imports nothing: the console bundles the list
// as it is (its event picker offers exactly these).
export const EVENT_TYPES = [
  "link.created",
  "link.updated",
  "link.deleted",
  "link.expired",
  "domain.verified",
  "domain.expired",
  "domain.suspended",
  "api_key.created",
  "api_key.revoked",
  "team.member_added",
  "team.member_removed",
  "subscription.upgraded",
  "subscription.downgraded",
  "bulk_import.completed",
  "conversion",
  "alert.triggered",
  "report.sent",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
