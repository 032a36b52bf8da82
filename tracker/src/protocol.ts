// Wire types of the journey ingest (POST /journey/events; docs/api.md "Journey ingest"): the event
// SDK's own (event-sdk/src/types.ts), so the tracker, the SDK and the server's schema (checked against
// them in server/journey/model.ts) describe one object. Type-only: nothing of the SDK is bundled here.
import type { JourneyEvent, PropertyValue } from "../../event-sdk/src/types";

export type { JourneyEventType } from "../../event-sdk/src/types";

export type JourneyPropertyValue = PropertyValue;

export type JourneyEventWire = JourneyEvent;

/** Body of POST {base_url}/journey/events: at most 100 events. */
export interface JourneyBatchWire {
  events: JourneyEventWire[];
}
