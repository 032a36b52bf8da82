// Registers every widget tag (the only module with a side effect) and types them for
// document.createElement / querySelector.
import { SvcAttributionElement } from "./attribution-element";
import { SvcBreakdownElement } from "./breakdown-element";
import { SvcConversionsElement } from "./conversions-element";
import { SvcFunnelElement } from "./funnel-element";
import { SvcLinkStatsElement } from "./link-stats-element";
import { SvcPathsElement } from "./paths-element";
import { SvcRealtimeElement } from "./realtime-element";
import { SvcRetentionElement } from "./retention-element";
import { SvcSummaryElement } from "./summary-element";
import { SvcTimeseriesElement } from "./timeseries-element";

export const widgetTags = {
  "svc-summary": SvcSummaryElement,
  "svc-timeseries": SvcTimeseriesElement,
  "svc-breakdown": SvcBreakdownElement,
  "svc-funnel": SvcFunnelElement,
  "svc-conversions": SvcConversionsElement,
  "svc-link-stats": SvcLinkStatsElement,
  "svc-paths": SvcPathsElement,
  "svc-retention": SvcRetentionElement,
  "svc-attribution": SvcAttributionElement,
  "svc-realtime": SvcRealtimeElement,
} as const;

/** Define each tag once; a page that loads the bundle twice keeps the first definitions. */
export function defineWidgets(registry: CustomElementRegistry = customElements): void {
  for (const [tag, ctor] of Object.entries(widgetTags)) if (!registry.get(tag)) registry.define(tag, ctor);
}

defineWidgets();

declare global {
  interface HTMLElementTagNameMap {
    "svc-summary": SvcSummaryElement;
    "svc-timeseries": SvcTimeseriesElement;
    "svc-breakdown": SvcBreakdownElement;
    "svc-funnel": SvcFunnelElement;
    "svc-conversions": SvcConversionsElement;
    "svc-link-stats": SvcLinkStatsElement;
    "svc-paths": SvcPathsElement;
    "svc-retention": SvcRetentionElement;
    "svc-attribution": SvcAttributionElement;
    "svc-realtime": SvcRealtimeElement;
  }
}
