// Numbers, dates and times in the browser's locale (Intl), one formatter of each kind.
/**
 * The first of the browser's languages that Intl accepts. A browser started under a POSIX locale
 * reports tags such as "en-US@posix", which Intl refuses with a RangeError; the console would not
 * start. With none accepted, Intl's own default is used.
 */
function browserLocale(): string | undefined {
  for (const tag of navigator.languages?.length ? navigator.languages : [navigator.language]) {
    try {
      if (tag) return new Intl.NumberFormat(tag).resolvedOptions().locale;
    } catch {
      // the next one
    }
  }
  return undefined;
}
export const locale = browserLocale();
const number = new Intl.NumberFormat(locale);
const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });
const date = new Intl.DateTimeFormat(locale, { dateStyle: "medium" });
const relative = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });

export const fmtNumber = (n: number | null | undefined) => (n === null || n === undefined ? "—" : number.format(n));
export const fmtDateTime = (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : "—");
const timeWithSeconds = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "medium" });
/** To the second: a session's events are often seconds apart. */
export const fmtTime = (iso: string | null | undefined) => (iso ? timeWithSeconds.format(new Date(iso)) : "—");
export const fmtDate = (iso: string | null | undefined) => (iso ? date.format(new Date(iso)) : "—");
const calendarDay = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
/** A calendar day (YYYY-MM-DD) as it is, whatever the browser's time zone. */
export const fmtDay = (day: string) => calendarDay.format(new Date(`${day}T00:00:00Z`));

/** "3 days ago", "in 2 hours": the largest unit that fits. */
export function fmtRelative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "never";
  const seconds = (new Date(iso).getTime() - now) / 1000;
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ["day", 86_400],
    ["hour", 3_600],
    ["minute", 60],
  ];
  for (const [unit, size] of units) if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  return relative.format(Math.round(seconds), "second");
}

export const fmtPercent = (used: number, limit: number | null) =>
  limit === null
    ? ""
    : new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 }).format(limit === 0 ? 0 : used / limit);

export const fmtDuration = (seconds: number) =>
  seconds < 60
    ? `${number.format(Math.round(seconds))} s`
    : seconds < 3600
      ? `${number.format(Math.round(seconds / 60))} min`
      : `${number.format(Math.round(seconds / 360) / 10)} h`;

const decimal = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const percent = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 });
/** An amount in its major unit (the API's `revenue`), with two decimals. */
export const fmtAmount = (n: number) => decimal.format(n);
/** A rate the API gives in percent (`conversion_rate`: 12.5 → "12.5%"). */
export const fmtRate = (pct: number) => percent.format(pct / 100);
