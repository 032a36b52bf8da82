// ISO 8601 date-times as the API accepts them; without an offset a time is UTC.

/** A date and a time (minutes at least), with an optional offset. */
export const ISO_DATE_TIME_PATTERN = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2})?$";
/** The same, or a date alone (its midnight UTC). */
export const ISO_DATE_OR_TIME_PATTERN = "^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$";
const HAS_OFFSET = /(Z|[+-]\d{2}:?\d{2})$/;

/** Epoch ms of a value that matches one of the patterns; NaN for an impossible time. */
export const isoTimeMs = (value: string) => Date.parse(value.length === 10 || HAS_OFFSET.test(value) ? value : `${value}Z`);

/** As isoTimeMs, and NaN for a calendar date that does not exist (Date.parse rolls 02-30 over to March). */
export function checkedIsoTimeMs(value: string): number {
  const [y, m, d] = value.slice(0, 10).split("-").map(Number);
  const day = new Date(Date.UTC(y, m - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) return NaN;
  return isoTimeMs(value);
}
