// <svc-funnel link-id steps="a,b,c">: ordered-step conversion of one link's visitors from
// GET /journey/links/{link_id}/funnel (docs/api.md "Journey reports").
import { JOURNEY_VISITORS, SvcElement } from "./base-element";
import { dataTable, hBars, stats } from "./charts";
import type { Fmt } from "./format";
import type { Funnel } from "./types";

export class SvcFunnelElement extends SvcElement<Funnel> {
  static override observedAttributes = [...SvcElement.observedAttributes, "link-id", "steps", "period"];
  protected readonly heading = "Funnel";
  protected readonly scope = "journey:read";

  /** Event names in order, from the comma-separated steps attribute. */
  get steps(): string[] {
    return (this.getAttribute("steps") || "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  }

  protected override missing(): string | null {
    if (!this.linkId) return "Pick a link: set the link-id attribute to the id of a link.";
    if (!this.steps.length) return 'Set the steps attribute to comma-separated event names, e.g. steps="page_view,signup,purchase".';
    return null;
  }

  protected load(signal: AbortSignal): Promise<Funnel> {
    return this.get(
      `/journey/links/${encodeURIComponent(this.linkId!)}/funnel`,
      { steps: this.steps.join(","), period: this.period },
      signal,
    );
  }

  protected override isEmpty(d: Funnel): boolean {
    return !d.steps.some((s) => s.visitors > 0);
  }
  protected override emptyText(): string {
    return `No visitor reached "${this.steps[0]}" in the last ${this.period}.`;
  }

  protected render({ steps, total_visitors }: Funnel, f: Fmt): string {
    const first = steps[0]?.visitors || 0;
    const last = steps[steps.length - 1]?.visitors || 0;
    const ofFirst = (v: number) => (first ? f.pct((v / first) * 100) : "—");
    const label =
      `Funnel over ${this.period}: ` +
      steps.map((s) => `${s.step_name} ${f.n(s.visitors)} (${f.pct(s.conversion_rate)} of the previous step)`).join(", ") +
      ".";
    return (
      stats([
        ["Visitors", f.n(total_visitors), JOURNEY_VISITORS],
        [`Reached ${steps[0]?.step_name ?? ""}`, f.n(first)],
        [`Completed ${steps[steps.length - 1]?.step_name ?? ""}`, f.n(last)],
        ["Overall conversion", ofFirst(last)],
      ]) +
      hBars(
        label,
        steps.map((s) => ({ label: s.step_name, value: s.visitors, text: `${f.n(s.visitors)} · ${f.pct(s.conversion_rate)}` })),
        first || undefined,
      ) +
      dataTable(
        "Funnel steps",
        ["Step", "Visitors", "From previous step", "From first step"],
        steps.map((s) => [s.step_name, f.n(s.visitors), f.pct(s.conversion_rate), ofFirst(s.visitors)]),
      )
    );
  }
}
