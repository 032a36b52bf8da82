// Shared by the conversion tests that load many events: events built here, made rows by the ingest's own
// code and inserted as the spool flusher inserts a chunk (through every materialized view), and the
// breakdown a report must give, computed from what was sent.
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { insertJourneyRows } from "../../server/ingest/journey/repository";
import { toJourneyRow } from "../../server/ingest/journey/rows";
import { chTime } from "../../server/storage/clickhouse/format";

export interface SentEvent {
  link: string;
  visitor: string;
  type: "page_view" | "conversion";
  ms: number;
  device: string;
  country: string;
  conversion_name?: string;
  event_name?: string;
  revenue_cents?: number;
}

/** Inserts `events` in chunks of `chunk` rows, each chunk one insert with its own deduplication token. */
export async function insertEvents(ch: Clickhouse, accountId: string, events: SentEvent[], chunk: number) {
  for (let from = 0; from < events.length; from += chunk) {
    const receivedMs = Date.now();
    const received = chTime(receivedMs);
    const rows = events.slice(from, from + chunk).map((e) =>
      toJourneyRow(crypto.randomUUID(), receivedMs, received, accountId, {
        link_id: e.link,
        visitor_id: e.visitor,
        session_id: `s-${e.visitor}`,
        event_type: e.type,
        event_name: e.event_name,
        page_url: "https://shop.example/",
        conversion_name: e.conversion_name,
        revenue_cents: e.revenue_cents,
        device_type: e.device,
        country_code: e.country,
        timestamp: new Date(e.ms).toISOString(),
      }),
    );
    await insertJourneyRows(ch, Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n")), rows.length, crypto.randomUUID());
  }
}

export type LabelDimension = "device" | "country" | "name";

/**
 * The rows of getConversionBreakdown for the events sent on `links`: per label, its conversions and
 * revenue, the distinct visitors with an event of that label (a conversion name: every visitor in scope)
 * and those with a conversion of that label; labels without conversions absent; most conversions first.
 */
export function expectedBreakdown(sent: SentEvent[], links: string[], dimension: LabelDimension) {
  const rows = new Map<string, { conversions: number; revenueCents: number; visitors: Set<string>; converters: Set<string> }>();
  const all = new Set<string>();
  for (const e of sent) {
    if (!links.includes(e.link)) continue;
    all.add(e.visitor);
    if (dimension === "name" && e.type !== "conversion") continue;
    const label = dimension === "device" ? e.device : dimension === "country" ? e.country : e.conversion_name || e.event_name || "";
    const row = rows.get(label) ?? { conversions: 0, revenueCents: 0, visitors: new Set(), converters: new Set() };
    rows.set(label, row);
    row.visitors.add(e.visitor);
    if (e.type === "conversion") {
      row.conversions++;
      row.revenueCents += e.revenue_cents ?? 0;
      row.converters.add(e.visitor);
    }
  }
  return [...rows]
    .map(([label, r]) => ({
      label,
      conversions: r.conversions,
      revenueCents: r.revenueCents,
      converters: r.converters.size,
      visitors: dimension === "name" ? all.size : r.visitors.size,
    }))
    .filter((r) => r.conversions > 0)
    .sort((a, b) => b.conversions - a.conversions || (a.label < b.label ? -1 : 1));
}
