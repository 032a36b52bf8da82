// The attribution report as a CSV table (server/http/csv-report.ts; docs/exports.md "Reports as CSV").
import { csvTable } from "../http/csv-report";
import type { AttributionReport } from "./attribution-model";

type Row = AttributionReport["rows"][number];

export const csvAttribution = csvTable({
  file: "conversions-attribution",
  rows: "One row per link or campaign, most credited conversions first, then `direct / none`.",
  toRows: (d: AttributionReport) => d.rows,
  columns: [
    { name: "kind", description: "link, campaign, no_campaign or direct" },
    { name: "id", description: "the link or campaign id; empty for no_campaign and direct", value: (r: Row) => r.id ?? "" },
    { name: "label", description: "as `label` in the JSON answer" },
    { name: "conversions", description: "as `conversions` in the JSON answer" },
    { name: "revenue", description: "as `revenue` in the JSON answer" },
    { name: "share", description: "as `share` in the JSON answer" },
  ],
});
