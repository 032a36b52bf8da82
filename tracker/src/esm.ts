// ES module entry (dist/t.esm.js) for single-page apps that start the tracker themselves.
export { createTracker } from "./tracker";
export type { ConversionOptions, Properties, Tracker, TrackerOptions } from "./tracker";
export type { JourneyBatchWire, JourneyEventType, JourneyEventWire, JourneyPropertyValue } from "./protocol";
