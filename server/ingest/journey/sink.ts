// The journey stream's entry for the spool: chunks go to ClickHouse as the spool wrote them (rows.ts
// turns the lines into JSONCompactEachRow in place), one insert per chunk under the chunk's token.
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { StreamEntry } from "../streams";
import { missingById } from "../repository";
import type { JourneyRecord } from "./record";
import { journeyEventId, journeyRowOf, spoolLinesToRows } from "./rows";
import { insertJourneyRows } from "./repository";

export function journeyStream(ch: Clickhouse): Required<Omit<StreamEntry<JourneyRecord>, "onOverBound" | "gatherMs">> {
  /** Parsed records: the chunk reconciled after a crash, and spools holding the object form. */
  const sink = async (records: JourneyRecord[], dedupToken: string) => {
    if (records.length === 0) return;
    const text = records.map((r) => JSON.stringify(journeyRowOf(r))).join("\n");
    await insertJourneyRows(ch, Buffer.from(text), records.length, dedupToken);
  };

  /** The chunk's bytes as the spool wrote them. */
  const sinkRaw = async (bytes: Buffer, dedupToken: string): Promise<number> => {
    const rows = spoolLinesToRows(bytes);
    if (rows < 0) {
      const records: JourneyRecord[] = [];
      for (const line of bytes.toString("utf8").split("\n")) if (line) records.push(...(JSON.parse(line) as JourneyRecord[]));
      await sink(records, dedupToken);
      return records.length;
    }
    if (rows > 0) await insertJourneyRows(ch, bytes, rows, dedupToken);
    return rows;
  };

  return {
    sink,
    sinkRaw,
    reconcile: missingById<JourneyRecord>(ch, "journey_events", "event_id", "UUID", journeyEventId),
    // Large chunks: every ClickHouse insert has a fixed cost (one pipeline per materialized view), and
    // journey_events' rollups make it high enough that 16 MB (~46,000 events) pays off.
    maxChunkBytes: 16 * 1024 * 1024,
  };
}
