// How the reports round what they show: rates in percent with two decimals, money from minor units.
export const round2 = (n: number) => Math.round(n * 100) / 100;

/** part of whole in percent, two decimals; 0 when whole is 0. */
export const percent = (part: number, whole: number) => (whole > 0 ? round2((part / whole) * 100) : 0);

export const money = (cents: number) => Math.round(cents) / 100;
