// What each kind of alert measures, from the journey's event bundles (server/journey/read.ts): distinct
// visitors with an event since a moment, and those of them who converted.
import type { Clickhouse } from "../storage/clickhouse/client";
import { countFromBundles } from "../journey/read";
import type { AlertKind, AlertRow } from "./model";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
export const WINDOWS = { visitors_above: 5 * MINUTE_MS, visitors_below: 12 * HOUR_MS } as const;
const RECENT_MS = 24 * HOUR_MS;
const BASELINE_MS = 7 * 24 * HOUR_MS;

export interface Measured {
  /** The figure compared with the threshold: visitors, or the conversion rate's drop in percent. */
  value: number;
  triggered: boolean;
  /** The figures behind it, as the email and the webhook event show them. */
  detail: Record<string, number>;
}

const rate = (c: { visitors: number; converters: number }) => (c.visitors ? (c.converters / c.visitors) * 100 : 0);
const round2 = (n: number) => Math.round(n * 100) / 100;

export async function measure(ch: Clickhouse, alert: AlertRow, nowMs: number): Promise<Measured> {
  const scope = (fromMs: number) => ({ accountId: alert.accountId, fromMs, ...(alert.linkId ? { linkIds: [alert.linkId] } : {}) });
  const kind = alert.kind as AlertKind;
  if (kind === "conversion_drop") {
    const [recent, baseline] = await Promise.all([
      countFromBundles(ch, scope(nowMs - RECENT_MS)),
      countFromBundles(ch, scope(nowMs - BASELINE_MS)),
    ]);
    const [now, before] = [rate(recent), rate(baseline)];
    // No visitors in the last 24 hours is no rate at all: visitors_below is the alert for that.
    const drop = before > 0 && recent.visitors > 0 ? round2(((before - now) / before) * 100) : 0;
    return {
      value: drop,
      triggered: drop >= alert.threshold && drop > 0,
      detail: {
        rate_24h: round2(now),
        rate_7d: round2(before),
        visitors_24h: recent.visitors,
        converters_24h: recent.converters,
        visitors_7d: baseline.visitors,
        converters_7d: baseline.converters,
      },
    };
  }
  const { visitors } = await countFromBundles(ch, scope(nowMs - WINDOWS[kind]), false);
  return {
    value: visitors,
    triggered: kind === "visitors_above" ? visitors > alert.threshold : visitors < alert.threshold,
    detail: { visitors, window_minutes: WINDOWS[kind] / MINUTE_MS },
  };
}

export function describeAlert(kind: AlertKind, threshold: number, subject: string): string {
  if (kind === "visitors_above") return `More than ${threshold} visitors in 5 minutes on ${subject}`;
  if (kind === "visitors_below") return `Fewer than ${threshold} visitors in 12 hours on ${subject}`;
  return `Conversion rate down ${threshold}% or more on ${subject}`;
}
