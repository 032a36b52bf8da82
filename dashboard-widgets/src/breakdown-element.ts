// <svc-breakdown dimension="geo|devices|referrers|hourly">: one analytics breakdown as bars plus a
// table (GET /analytics/geo, /devices, /referrers, /hourly).
import { AnalyticsElement, CLICK_VISITORS, countNote, usageNote } from "./base-element";
import { dataTable, hBars, vBars, type Bar } from "./charts";
import type { Fmt } from "./format";
import type { AnalyticsResult, DeviceRow, GeoRow, HourlyRow, ReferrerRow } from "./types";

export type Dimension = "geo" | "devices" | "referrers" | "hourly";
export type BreakdownRow = GeoRow | DeviceRow | ReferrerRow | HourlyRow;

interface DimSpec {
  heading: string;
  head: string[];
  label(r: any, f: Fmt): string;
  cells(r: any, f: Fmt): string[];
}

const cap = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : "Unknown");
const hour = (h: number) => `${String(h).padStart(2, "0")}:00`;
const withVisitors = (first: string, r: { clicks: number; unique_visitors: number }, f: Fmt) => [
  first,
  f.n(r.clicks),
  f.n(r.unique_visitors),
];

const DIMS: Record<Dimension, DimSpec> = {
  geo: {
    heading: "Countries",
    head: ["Country", "Clicks", "Visitors"],
    label: (r: GeoRow, f) => f.country(r.country_code),
    cells: (r: GeoRow, f) => withVisitors(f.country(r.country_code), r, f),
  },
  devices: {
    heading: "Devices",
    head: ["Device", "Browser", "OS", "Clicks"],
    label: (r: DeviceRow) => `${cap(r.device_type)} · ${r.browser || "Unknown"} · ${r.os || "Unknown"}`,
    cells: (r: DeviceRow, f) => [cap(r.device_type), r.browser || "Unknown", r.os || "Unknown", f.n(r.clicks)],
  },
  referrers: {
    heading: "Referrers",
    head: ["Referrer", "Clicks", "Visitors"],
    label: (r: ReferrerRow) => (r.referrer === "direct" || !r.referrer ? "Direct / none" : r.referrer),
    cells: (r: ReferrerRow, f) => withVisitors(DIMS.referrers.label(r, f), r, f),
  },
  hourly: {
    heading: "Clicks by hour (UTC)",
    head: ["Hour (UTC)", "Clicks", "Visitors"],
    label: (r: HourlyRow) => hour(r.hour),
    cells: (r: HourlyRow, f) => withVisitors(hour(r.hour), r, f),
  },
};

export class SvcBreakdownElement extends AnalyticsElement<BreakdownRow[]> {
  static override observedAttributes = [...AnalyticsElement.observedAttributes, "dimension", "limit"];

  get dimension(): Dimension {
    const d = this.getAttribute("dimension") as Dimension;
    return d in DIMS ? d : "geo";
  }
  /** Bars drawn for ranked dimensions (the table lists every row); default 10. */
  get limit(): number {
    const n = Number(this.getAttribute("limit"));
    return Number.isInteger(n) && n > 0 ? n : 10;
  }
  protected get heading(): string {
    return DIMS[this.dimension].heading;
  }
  protected get path(): string {
    return this.dimension;
  }

  protected override isEmpty({ analytics }: AnalyticsResult<BreakdownRow[]>): boolean {
    return !analytics.some((r) => r.clicks > 0);
  }

  protected render({ analytics, usage }: AnalyticsResult<BreakdownRow[]>, f: Fmt): string {
    const dim = this.dimension;
    const spec = DIMS[dim];
    const rows =
      dim === "hourly"
        ? [...analytics].sort((a, b) => (a as HourlyRow).hour - (b as HourlyRow).hour)
        : [...analytics].sort((a, b) => b.clicks - a.clicks);
    const bars: Bar[] = rows.map((r) => ({ label: spec.label(r, f), value: r.clicks, text: f.n(r.clicks) }));
    const shown = dim === "hourly" ? bars : bars.slice(0, this.limit);
    const top = [...bars].sort((a, b) => b.value - a.value).slice(0, 3);
    const label =
      `Clicks by ${spec.head[0].toLowerCase()}, ${shown.length} of ${bars.length} shown. Most clicks: ` +
      top.map((b) => `${b.label} ${b.text}`).join("; ") +
      ".";
    const chart = dim === "hourly" ? vBars(label, bars, (v) => f.n(v)) : hBars(label, shown);
    return (
      chart +
      dataTable(
        spec.heading,
        spec.head,
        rows.map((r) => spec.cells(r, f)),
      ) +
      (spec.head.includes("Visitors") ? countNote(CLICK_VISITORS) : "") +
      usageNote(usage, f)
    );
  }
}
