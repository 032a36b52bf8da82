// Owns the life cycle every widget shares: typed attribute getters, one debounced fetch per burst
// of attribute changes, stale-answer dropping, the loading / empty / error / loaded states, and the
// svc-loading / svc-load / svc-error events. Subclasses only load and render.
import { ApiError, apiGet, explainError, type ApiErrorInfo, type Query } from "./api";
import { esc } from "./charts";
import { Fmt, pageLocale } from "./format";
import { css } from "./styles";
import type { AnalyticsResult, AnalyticsUsage, BotFilter, Period } from "./types";

export type WidgetState = "idle" | "loading" | "loaded" | "empty" | "error";

const PERIODS: readonly Period[] = ["24h", "7d", "30d", "90d"];

export abstract class SvcElement<T> extends HTMLElement {
  static observedAttributes = ["api-base", "api-key"];

  /** The last data the API returned (the `data` of the envelope, or what load() made of it). */
  data?: T;
  #state: WidgetState = "idle";
  #stale = true;
  #queued = false;
  #ctrl?: AbortController;
  #section: HTMLElement;
  #status: HTMLElement;
  #content: HTMLElement;

  protected abstract readonly heading: string;
  /** The key permission the widget's requests need, named in 403 explanations. */
  protected abstract readonly scope: string;
  protected abstract load(signal: AbortSignal): Promise<T>;
  protected abstract render(data: T, fmt: Fmt): string;
  protected isEmpty(_data: T): boolean {
    return false;
  }
  protected emptyText(): string {
    return "No data for this period.";
  }
  /** A sentence naming a required attribute that is not set, or null. */
  protected missing(): string | null {
    return null;
  }

  constructor() {
    super();
    const root = this.shadowRoot ?? this.attachShadow({ mode: "open" });
    root.innerHTML = `<style>${css}</style><section part="card"><header><h2 part="heading"></h2><span class="status" role="status" aria-live="polite"></span></header><div class="content" part="content"></div></section>`;
    this.#section = root.querySelector("section")!;
    this.#status = root.querySelector(".status")!;
    this.#content = root.querySelector(".content")!;
  }

  get apiBase(): string {
    return (this.getAttribute("api-base") || location.origin + "/public-api/v1").replace(/\/+$/, "");
  }
  get apiKey(): string | null {
    return this.getAttribute("api-key") || null;
  }
  get linkId(): string | null {
    return this.getAttribute("link-id") || null;
  }
  /** Rolling window of the analytics widgets, 1 to 365, default 30. */
  get days(): number {
    const n = Number(this.getAttribute("days"));
    return Number.isInteger(n) && n >= 1 && n <= 365 ? n : 30;
  }
  /** Window of the journey and conversion widgets, default 30d. */
  get period(): Period {
    const p = this.getAttribute("period") as Period;
    return PERIODS.includes(p) ? p : "30d";
  }
  get botFilter(): BotFilter {
    const b = this.getAttribute("bot-filter");
    return b === "bot" || b === "all" ? b : "real";
  }
  get state(): WidgetState {
    return this.#state;
  }

  connectedCallback(): void {
    if (this.#stale) this.#schedule();
  }
  disconnectedCallback(): void {
    if (this.#state === "loading") {
      this.#ctrl?.abort();
      this.#stale = true;
    }
  }
  attributeChangedCallback(_name: string, old: string | null, value: string | null): void {
    if (old === value) return;
    this.#stale = true;
    if (this.isConnected) this.#schedule();
  }

  /** Fetch now; attribute changes call this once per burst, after the current task's changes. */
  async refresh(): Promise<void> {
    this.#queued = false;
    this.#stale = false;
    this.#ctrl?.abort();
    const ctrl = (this.#ctrl = new AbortController());
    this.#section.querySelector("h2")!.textContent = this.getAttribute("heading") || this.heading;
    const missing = this.missing();
    if (missing) return this.#fail({ status: 0, code: "MISSING_ATTRIBUTE", message: missing });
    this.#set("loading");
    this.#emit("svc-loading", null);
    try {
      const data = await this.load(ctrl.signal);
      if (ctrl.signal.aborted) return;
      const empty = this.isEmpty(data);
      this.data = data;
      this.#content.innerHTML = empty ? `<p class="empty">${esc(this.emptyText())}</p>` : this.render(data, this.fmt());
      this.#set(empty ? "empty" : "loaded");
      this.#emit("svc-load", data);
    } catch (e) {
      if (ctrl.signal.aborted) return;
      this.#fail(e instanceof ApiError ? e.toJSON() : { status: 0, code: "CLIENT_ERROR", message: String((e as Error)?.message ?? e) });
    }
  }

  protected fmt(): Fmt {
    return new Fmt(pageLocale(this), this.getAttribute("currency") || "USD");
  }
  protected get<R>(path: string, query: Query, signal: AbortSignal): Promise<R> {
    return apiGet<R>(this.apiBase, path, query, this.apiKey, signal);
  }

  #schedule(): void {
    if (this.#queued) return;
    this.#queued = true;
    if (this.#state === "idle") this.#set("loading");
    queueMicrotask(() => {
      if (this.#queued && this.isConnected) this.refresh();
      else this.#queued = false;
    });
  }
  #set(state: WidgetState): void {
    this.#state = state;
    const busy = state === "loading";
    this.#section.classList.toggle("busy", busy);
    this.#section.setAttribute("aria-busy", String(busy));
    this.#status.textContent = busy ? "Loading…" : "";
  }
  #fail(err: ApiErrorInfo): void {
    const why = explainError(err, this.scope);
    const where = err.status ? `HTTP ${err.status} · ${err.code}` : "";
    // A missing attribute is a set-up hint (say, no link picked yet), not an alarm.
    this.#content.innerHTML =
      err.code === "MISSING_ATTRIBUTE"
        ? `<p class="empty">${esc(err.message)}</p>`
        : `<div class="error" role="alert" part="error"><p><strong>${esc(err.message)}</strong></p>` +
          (why ? `<p>${esc(why)}</p>` : "") +
          (where ? `<p class="muted">${esc(where)}</p>` : "") +
          "</div>";
    this.#set("error");
    this.#emit("svc-error", err);
  }
  #emit(type: string, detail: unknown): void {
    this.dispatchEvent(new CustomEvent(type, { bubbles: true, composed: true, detail }));
  }
}

/** Widgets over GET /analytics/{path}: days, bot-filter and link-id (one link's clicks), data = { analytics, usage }. */
export abstract class AnalyticsElement<R> extends SvcElement<AnalyticsResult<R>> {
  static override observedAttributes = [...SvcElement.observedAttributes, "days", "bot-filter", "link-id"];
  protected readonly scope = "analytics:read";
  protected abstract readonly path: string;

  protected load(signal: AbortSignal): Promise<AnalyticsResult<R>> {
    return this.get(`/analytics/${this.path}`, { days: this.days, bot_filter: this.botFilter, link_id: this.linkId }, signal);
  }
  protected override emptyText(): string {
    return `No clicks in the last ${this.days} days.`;
  }
}

/** A notice when the account's click budget clamps the date range. */
/** What a visitor figure counts, shown where the figure is (docs/accuracy.md). */
export const CLICK_VISITORS = "Visitors are counted once per UTC day: no stored identifier crosses days.";
export const JOURNEY_VISITORS = "Visitors are counted once per period: a visitor_id is the site's own stable id.";
export const countNote = (text: string) => `<p class="note">${esc(text)}</p>`;

export function usageNote(usage: AnalyticsUsage | undefined, fmt: Fmt): string {
  return usage?.limit_exceeded
    ? `<p class="note" role="note">Monthly click limit reached${usage.tier === undefined ? "" : ` (${esc(usage.tier)} tier)`}: showing data since ${esc(usage.cutoff_date ? fmt.date(usage.cutoff_date) : "the cutoff date")}.</p>`
    : "";
}
