// <svc-paths link-id start="/pricing" | end="purchase" steps="5">: where a link's visitors went after an
// event, or came from before one, from GET /journey/links/{link_id}/paths (docs/insights.md).
import { JOURNEY_VISITORS, SvcElement } from "./base-element";
import { compareAttr, changeNote } from "./compare";
import { dataTable, esc, hBars, stats } from "./charts";
import type { Fmt } from "./format";
import type { Compared, PathsReport } from "./types";

type Paths = Compared<PathsReport>;

export class SvcPathsElement extends SvcElement<Paths> {
  static override observedAttributes = [...SvcElement.observedAttributes, "link-id", "start", "end", "steps", "period", "compare"];
  protected readonly heading = "Paths";
  protected readonly scope = "journey:read";

  protected override missing(): string | null {
    if (!this.linkId) return "Pick a link: set the link-id attribute to the id of a link.";
    if (!this.getAttribute("start") && !this.getAttribute("end"))
      return 'Set the start attribute (paths after an event, e.g. start="/pricing") or the end attribute (paths before one, e.g. end="purchase").';
    return null;
  }

  protected load(signal: AbortSignal): Promise<Paths> {
    const start = this.getAttribute("start");
    return this.get(
      `/journey/links/${encodeURIComponent(this.linkId!)}/paths`,
      {
        start,
        end: start ? null : this.getAttribute("end"),
        steps: this.getAttribute("steps"),
        period: this.period,
        compare: compareAttr(this),
      },
      signal,
    );
  }

  protected override isEmpty(d: Paths): boolean {
    return d.visitors === 0;
  }
  protected override emptyText(): string {
    return `No visitor did "${this.getAttribute("start") || this.getAttribute("end")}" in the last ${this.period}.`;
  }

  protected render(d: Paths, f: Fmt): string {
    const back = d.direction === "backward";
    const stepName = (k: number) => (back ? (k === 1 ? "End" : `${k - 1} before`) : k === 1 ? "Start" : `Step ${k}`);
    const last = d.steps[d.steps.length - 1];
    return (
      stats([
        [back ? `Did ${d.target}` : `Started at ${d.target}`, f.n(d.visitors), changeNote(d.comparison, "visitors", f) ?? JOURNEY_VISITORS],
        [`Reached ${stepName(last?.step ?? 1).toLowerCase()}`, f.n(last?.visitors ?? 0)],
      ]) +
      d.steps
        .map((s) => {
          const label = `${stepName(s.step)}: ${f.n(s.visitors)} visitors, ${f.n(s.left)} ${back ? "began here" : "left here"}`;
          const bars = s.nodes.map((n) => ({ label: n.name, value: n.visitors, text: f.n(n.visitors) }));
          if (s.other_visitors) bars.push({ label: "Other", value: s.other_visitors, text: f.n(s.other_visitors) });
          return `<p class="note">${esc(label)}</p>${hBars(label, bars, d.visitors || undefined)}`;
        })
        .join("") +
      dataTable(
        "Path steps",
        ["Step", "Page or event", "Visitors", back ? "Began here" : "Left here"],
        d.steps.flatMap((s) => s.nodes.map((n) => [stepName(s.step), n.name, f.n(n.visitors), f.n(n.left)])),
      ) +
      dataTable(
        "Path edges",
        ["From", "To", "Visitors", "Median time"],
        d.edges.map((e) => [e.source, e.target, f.n(e.visitors), f.duration(e.median_seconds)]),
      )
    );
  }
}
