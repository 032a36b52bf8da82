// The internal event bus. `emitEvent` runs inside the caller's transaction and writes one webhook
// delivery per subscribed, active endpoint (a transactional outbox): if the change commits, the
// deliveries exist; if it rolls back, so do they. In-process listeners hear events after commit.
import { and, eq, sql } from "drizzle-orm";
import { webhookEndpoints } from "../storage/postgres/schema";
import type { DbOrTx } from "../storage/postgres/client";
import { storableJson } from "../storage/text";

export const EVENT_TYPES = [
  "link.created",
  "link.updated",
  "link.deleted",
  "link.expired",
  "domain.verified",
  "domain.expired",
  "domain.suspended",
  "api_key.created",
  "api_key.revoked",
  "team.member_added",
  "team.member_removed",
  "subscription.upgraded",
  "subscription.downgraded",
  "bulk_import.completed",
  "conversion",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

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
  const subscribed = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(eq(webhookEndpoints.accountId, accountId), eq(webhookEndpoints.isActive, true), sql`${type} = any(${webhookEndpoints.events})`),
    )
    .limit(1);
  if (subscribed.length) {
    // jsonb refuses NUL and unpaired surrogates: a payload holding one is stored with U+FFFD instead.
    const payloads = storableJson(items.map((data) => ({ event: type, timestamp, data })));
    await db.execute(sql`
      insert into webhook_deliveries (endpoint_id, account_id, event_type, payload, status, next_retry_at)
      select e.id, e.account_id, ${type}, p.payload, 'pending', now()
      from webhook_endpoints e cross join jsonb_array_elements(${payloads}::jsonb) with ordinality as p(payload, n)
      where e.account_id = ${accountId} and e.is_active and ${type} = any(e.events)
      order by p.n`);
  }
  const events = items.map((data) => ({ accountId, type, data, timestamp }));
  queueMicrotask(() => {
    for (const event of events) for (const l of listeners) l(event);
  });
}
