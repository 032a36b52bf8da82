// The `compare` attribute of the insight widgets (previous | year): the API's `comparison` object
// (docs/insights.md) as a note under a headline figure.
import type { Fmt } from "./format";
import type { Comparison } from "./types";

export type CompareMode = "previous" | "year";

export function compareAttr(el: Element): CompareMode | null {
  const c = el.getAttribute("compare");
  return c === "previous" || c === "year" ? c : null;
}

/** "was 120 the previous period (+12.5%)", or undefined without a comparison of this figure. */
export function changeNote(
  c: Comparison<object> | undefined,
  field: string,
  f: Fmt,
  value: (v: number) => string = (v) => f.n(v),
): string | undefined {
  const ch = c?.change[field];
  if (!c || !ch) return undefined;
  const when = c.compare === "year" ? "a year before" : "the previous period";
  return `was ${value(ch.previous)} ${when}${ch.change_percent === null ? "" : ` (${f.pct(ch.change_percent, true)})`}`;
}
