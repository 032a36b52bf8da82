// <svc-realtime [link-id] [source="journey"] [refresh="10"]>: visitors and clicks (or a link's journey
// events) in the last 5 minutes and per minute over the last 30, from GET /analytics/realtime or
// GET /journey/links/{link_id}/realtime (docs/insights.md "Realtime"); it asks again every `refresh`
// seconds (default 10, 0: never) while it is in the page.
import { SvcElement } from "./base-element";
import { dataTable, stats, vBars } from "./charts";
import type { Fmt } from "./format";
import type { Realtime } from "./types";

const DEFAULT_REFRESH_S = 10;

export class SvcRealtimeElement extends SvcElement<Realtime> {
  static override observedAttributes = [...SvcElement.observedAttributes, "link-id", "source", "refresh"];
  protected get heading(): string {
    return this.journey ? "Journey events right now" : "Clicks right now";
  }
  #timer?: ReturnType<typeof setInterval>;

  protected get scope(): string {
    return this.journey ? "journey:read" : "analytics:read";
  }
  get journey(): boolean {
    return this.getAttribute("source") === "journey";
  }
  /** Seconds between refreshes, 0 for none. */
  get refreshSeconds(): number {
    const raw = this.getAttribute("refresh");
    const n = raw === null ? DEFAULT_REFRESH_S : Number(raw);
    return Number.isFinite(n) && n >= 0 ? n : DEFAULT_REFRESH_S;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#restartTimer();
  }
  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
  override attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    super.attributeChangedCallback(name, old, value);
    if (name === "refresh" && this.isConnected) this.#restartTimer();
  }
  #restartTimer(): void {
    clearInterval(this.#timer);
    const s = this.refreshSeconds;
    this.#timer = s > 0 ? setInterval(() => void this.refresh(), s * 1000) : undefined;
  }

  protected override missing(): string | null {
    return this.journey && !this.linkId ? "Pick a link: journey events are counted per link (set link-id)." : null;
  }

  protected load(signal: AbortSignal): Promise<Realtime> {
    return this.journey
      ? this.get(`/journey/links/${encodeURIComponent(this.linkId!)}/realtime`, {}, signal)
      : this.get("/analytics/realtime", { link_id: this.linkId }, signal);
  }

  protected render(d: Realtime, f: Fmt): string {
    const what = d.source === "clicks" ? "Clicks" : "Events";
    const time = new Intl.DateTimeFormat(f.locale, { hour: "2-digit", minute: "2-digit" });
    const labels = d.minutes.map((m) => time.format(new Date(m.minute)));
    const bars = d.minutes.map((m, i) => ({ label: labels[i], value: m.visitors, text: f.n(m.visitors) }));
    const ticks = labels.map((l, i) => (i % 5 === 4 ? l : ""));
    return (
      stats([
        ["Visitors, last 5 minutes", f.n(d.visitors)],
        [`${what}, last 5 minutes`, f.n(d.events)],
      ]) +
      vBars("Visitors per minute, last 30 minutes", bars, (v) => f.n(v), ticks) +
      dataTable(
        "Visitors per minute",
        ["Minute", "Visitors", what],
        d.minutes.map((m, i) => [labels[i], f.n(m.visitors), f.n(m.events)]),
      )
    );
  }
}
