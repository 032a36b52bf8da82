// Wire types of the journey ingest (POST /journey/events; docs/api.md "Journey ingest").
// Type-only: the server checks its TypeBox schema against these with `import type`.

export type JourneyEventType = "page_view" | "scroll_depth" | "time_on_page" | "custom" | "conversion";

export type JourneyPropertyValue = string | number | boolean | null;

export interface JourneyEventWire {
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
  device_type?: "mobile" | "desktop" | "tablet";
  browser?: string;
  browser_version?: string;
  os?: string;
  os_version?: string;
  properties?: Record<string, JourneyPropertyValue>;
}

/** Body of POST {base_url}/journey/events: at most 100 events. */
export interface JourneyBatchWire {
  events: JourneyEventWire[];
}
