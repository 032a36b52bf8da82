// Wire types of POST /public-api/v1/journey/events, the tracker's too (tracker/src/protocol.ts takes
// them with `import type`). The server checks its request schema against JourneyEvent at type-check
// time, so the two cannot drift apart. Types only, importing nothing: each bundle compiles from it.

export type JourneyEventType = "page_view" | "scroll_depth" | "time_on_page" | "custom" | "conversion";

export type PropertyValue = string | number | boolean | null;

export type DeviceType = "mobile" | "desktop" | "tablet";

/** One event as the API takes it. */
export interface JourneyEvent {
  link_id: string;
  visitor_id: string;
  session_id?: string;
  event_type: JourneyEventType;
  event_name?: string;
  page_url: string;
  page_title?: string;
  scroll_percent?: number;
  time_on_page?: number;
  timestamp?: string;
  conversion_name?: string;
  revenue_cents?: number;
  currency?: string;
  country_code?: string;
  city?: string;
  region?: string;
  device_type?: DeviceType;
  browser?: string;
  browser_version?: string;
  os?: string;
  os_version?: string;
  properties?: Record<string, PropertyValue>;
}

/** Fields the client fills in on every event unless the event sets them (device and place). */
export type EventContext = Pick<
  JourneyEvent,
  "device_type" | "browser" | "browser_version" | "os" | "os_version" | "country_code" | "city" | "region"
>;

/** Who and where an event is about; the client's defaults apply to what an event leaves out. */
export type EventIdentity = Pick<JourneyEvent, "link_id" | "visitor_id" | "session_id">;

/** The `data.usage` object of a 202 between 100% and 150% of the account's monthly limit. */
export interface JourneyUsage {
  events_this_month: number;
  limit: number;
  status: "soft_limit" | "hard_limit_approaching";
}
