// Wire types of the journey ingest (POST /journey/events; docs/api.md "Journey ingest"). The object
// form is the event SDK's (event-sdk/src/types.ts), which the server's schema is checked against
// (server/journey/model.ts). t.js sends the compact form (docs/api.md "Compact form"): the same
// events as positional arrays, which the server expands into the object form
// (server/journey/compact.ts) before the same validation. Type-only: nothing here is bundled.
import type { JourneyEvent, PropertyValue } from "../../event-sdk/src/types";

export type { JourneyEventType } from "../../event-sdk/src/types";

export type JourneyPropertyValue = PropertyValue;

export type JourneyEventWire = JourneyEvent;

/** Body of POST {base_url}/journey/events in the object form: at most 100 events. */
export interface JourneyBatchWire {
  events: JourneyEventWire[];
}

/** event_type in the compact form: page_view, scroll_depth, time_on_page, custom, conversion. */
export type CompactEventType = 0 | 1 | 2 | 3 | 4;

/**
 * One event in the compact form: the fields every event has, by position, then the type's own:
 * page_view [properties], scroll_depth [scroll_percent], time_on_page [time_on_page],
 * custom [event_name, properties], conversion [event_name, properties, revenue_cents, currency,
 * conversion_name]. null (and NaN, which JSON writes as null) means absent.
 */
export type CompactEvent = [
  type: CompactEventType,
  link_id: string,
  visitor_id: string,
  session_id: string,
  page_url: string,
  page_title: string,
  device_type: 0 | 1 | 2, // mobile, tablet, desktop
  timestamp: number, // milliseconds since 1970-01-01 UTC
  ...tail: unknown[],
];

/** Body of POST {base_url}/journey/events in the compact form: the idempotency key, then 1 to 100 events. */
export type CompactBatch = [key: string | null, ...events: CompactEvent[]];
