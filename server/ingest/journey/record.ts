// What the journey spool holds: the accepted events of POST /journey/events, one line per batch.
/**
 * An accepted journey event as the spool holds it: its `journey_events` row, positional in
 * JOURNEY_COLUMNS order (rows.ts), which the flusher passes to ClickHouse as it is;
 * or the object form of spools written before rows.
 */
export type JourneyRecord = JourneyRow | JourneyEventRecord;

export type JourneyRow = (string | number | null)[];

/** The object form: a journey event as accepted by POST /journey/events, with the server's additions. */
export interface JourneyEventRecord {
  event_id: string;
  received_at: number; // epoch ms
  account_id: string;
  event: Record<string, unknown>;
}
