// Bundle entry (dist/widgets.js): registers the tags and exports the classes and the API client,
// which dashboard.html reuses for the links list.
import "./define";

export { defineWidgets, widgetTags } from "./define";
export { SvcElement, type WidgetState } from "./base-element";
export { SvcSummaryElement } from "./summary-element";
export { SvcTimeseriesElement } from "./timeseries-element";
export { SvcBreakdownElement } from "./breakdown-element";
export { SvcFunnelElement } from "./funnel-element";
export { SvcConversionsElement } from "./conversions-element";
export { SvcLinkStatsElement } from "./link-stats-element";
export { SvcPathsElement } from "./paths-element";
export { SvcRetentionElement } from "./retention-element";
export { SvcAttributionElement } from "./attribution-element";
export { SvcRealtimeElement } from "./realtime-element";
export { ApiError, apiGet, explainError, type ApiErrorInfo } from "./api";
