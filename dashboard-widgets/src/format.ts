// Owns every number, money, date and duration a widget shows: Intl formatters for one locale.

/** The locale of the page around `el`: nearest lang attribute, then <html lang>, then the browser's. */
export function pageLocale(el: Element): string | undefined {
  const tag = el.closest("[lang]")?.getAttribute("lang") || document.documentElement?.lang || navigator.language;
  try {
    return tag ? new Intl.NumberFormat(tag).resolvedOptions().locale : undefined;
  } catch {
    return undefined;
  }
}

/** 'YYYY-MM-DD', 'YYYY-MM-DD hh:mm:ss' (ClickHouse) or ISO 8601 → Date; bare forms are UTC. */
export function parseTime(s: string): Date {
  if (/^\d{4}-\d\d-\d\d$/.test(s)) return new Date(s + "T00:00:00Z");
  if (/^\d{4}-\d\d-\d\d \d/.test(s)) s = s.replace(" ", "T");
  if (/T[\d:.]+$/.test(s)) s += "Z";
  return new Date(s);
}

export class Fmt {
  readonly locale?: string;
  readonly currency: string;
  #int: Intl.NumberFormat;
  constructor(locale?: string, currency = "USD") {
    this.locale = locale;
    this.currency = currency;
    this.#int = this.#nf({ maximumFractionDigits: 0 });
  }
  #nf(o: Intl.NumberFormatOptions): Intl.NumberFormat {
    return new Intl.NumberFormat(this.locale, o);
  }
  /** Whole counts. */
  n(v: number): string {
    return this.#int.format(v);
  }
  /** Averages and other fractional values. */
  dec(v: number): string {
    return this.#nf({ maximumFractionDigits: 2 }).format(v);
  }
  /** Signed count change: +5, −3, 0. */
  signed(v: number): string {
    return this.#nf({ signDisplay: "exceptZero" }).format(v);
  }
  /** `v` is a percentage (42.5 means 42.5 %), as the API reports rates. */
  pct(v: number, signed = false): string {
    return this.#nf({ style: "percent", maximumFractionDigits: 1, signDisplay: signed ? "exceptZero" : "auto" }).format(v / 100);
  }
  money(v: number): string {
    try {
      return this.#nf({ style: "currency", currency: this.currency }).format(v);
    } catch {
      return this.#nf({ style: "currency", currency: "USD" }).format(v);
    }
  }
  /** Short day label for chart axes, from a UTC date. */
  day(s: string): string {
    return new Intl.DateTimeFormat(this.locale, { month: "short", day: "numeric", timeZone: "UTC" }).format(parseTime(s));
  }
  /** Full date for tables. */
  date(s: string): string {
    return new Intl.DateTimeFormat(this.locale, { dateStyle: "medium", timeZone: "UTC" }).format(parseTime(s));
  }
  dateTime(s: string | null | undefined): string {
    const d = s ? parseTime(s) : null;
    return d && !isNaN(+d) ? new Intl.DateTimeFormat(this.locale, { dateStyle: "medium", timeStyle: "short" }).format(d) : "—";
  }
  /** Seconds → the largest fitting unit, e.g. "1.5 hr". */
  duration(sec: number): string {
    const [unit, div] = sec < 60 ? ["second", 1] : sec < 3600 ? ["minute", 60] : sec < 86400 ? ["hour", 3600] : ["day", 86400];
    return this.#nf({ style: "unit", unit, unitDisplay: "short", maximumFractionDigits: 1 }).format(sec / (div as number));
  }
  /** Country name for an ISO code, or the code itself. */
  country(code: string): string {
    if (!code || /^(xx|zz|unknown)$/i.test(code)) return "Unknown";
    try {
      return new Intl.DisplayNames(this.locale, { type: "region" }).of(code.toUpperCase()) || code;
    } catch {
      return code;
    }
  }
}
