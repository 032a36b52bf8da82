// The webhook outbox writer. `emitEvent` runs inside the caller's transaction and writes one delivery
// per subscribed, active endpoint: if the change commits, the deliveries exist; if it rolls back, so
// do they. In-process listeners (the dispatcher's wake-up) hear events after the call.
import type { DbOrTx } from "../storage/postgres/client";
import { storableJson } from "../storage/text";
import type { EventType } from "./model";
import { hasSubscriber, queueDeliveries } from "./repository";

export interface BusEvent {
  accountId: string;
  type: EventType | "test";
  data: Record<string, unknown>;
  timestamp: string;
}

type Listener = (event: BusEvent) => void;
const listeners = new Set<Listener>();

export function onEvent(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const emitEvent = (db: DbOrTx, accountId: string, type: EventType, data: Record<string, unknown>) =>
  emitEvents(db, accountId, type, [data]);

/**
 * Events of one type (a bulk import's links, a batch's conversions) in one statement, one delivery per
 * event and subscribed endpoint. The payloads are only built and sent when some endpoint subscribes.
 */
export async function emitEvents(db: DbOrTx, accountId: string, type: EventType, items: Record<string, unknown>[]): Promise<void> {
  if (!items.length) return;
  const timestamp = new Date().toISOString();
  if (await hasSubscriber(db, accountId, type)) {
    // jsonb refuses NUL and unpaired surrogates: a payload holding one is stored with U+FFFD instead.
    await queueDeliveries(db, accountId, type, storableJson(items.map((data) => ({ event: type, timestamp, data }))));
  }
  const events = items.map((data) => ({ accountId, type, data, timestamp }));
  queueMicrotask(() => {
    for (const event of events) for (const l of listeners) l(event);
  });
}
