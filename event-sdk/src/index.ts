// The event SDK's core: no Node built-ins and no platform globals beyond fetch and timers, so the
// same code runs in React Native, browsers, Node, Bun and Deno. The file store is `./file-storage`.
export { createEventClient, EventClient } from "./client";
export type { ClientStats, DroppedEvents, EventClientOptions, TrackEvent } from "./client";
export { memoryStorage } from "./storage";
export type { EventStorage } from "./storage";
export { InvalidEventError, MAX_BATCH } from "./validate";
export type { RetryOptions } from "./retry";
export type { FetchLike } from "./transport";
export type { DeviceType, EventContext, EventIdentity, JourneyEvent, JourneyEventType, JourneyUsage, PropertyValue } from "./types";
