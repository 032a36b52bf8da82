// The dashboard widgets (loaded from /widgets.js) as JSX elements: attributes are strings.
import "preact";

type WidgetProps = {
  id?: string;
  class?: string;
  theme?: string;
  "link-id"?: string;
  days?: string | number;
  period?: string;
  "bot-filter"?: string;
  dimension?: string;
  steps?: string;
  heading?: string;
  interval?: string;
  start?: string;
  end?: string;
  weeks?: string | number;
  compare?: string;
  model?: string;
  "window-days"?: string | number;
  "group-by"?: string;
  controls?: string;
  source?: string;
  refresh?: string | number;
};

declare module "preact" {
  namespace JSX {
    interface IntrinsicElements {
      "svc-summary": WidgetProps;
      "svc-timeseries": WidgetProps;
      "svc-breakdown": WidgetProps;
      "svc-funnel": WidgetProps;
      "svc-conversions": WidgetProps;
      "svc-link-stats": WidgetProps;
      "svc-paths": WidgetProps;
      "svc-retention": WidgetProps;
      "svc-attribution": WidgetProps;
      "svc-realtime": WidgetProps;
    }
  }
}
