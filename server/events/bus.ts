// The internal event bus. `emitEvent` runs inside the caller's transaction and writes one webhook
// delivery per subscribed, active endpoint (a transactional outbox): if the change commits, the
// deliveries exist; if it rolls back, so do they. In-process listeners hear events after commit.
import { sql } from "drizzle-orm";
import type { DbOrTx } from "../storage/postgres/client";

export const EVENT_TYPES = [
  "link.created", "link.updated", "link.deleted", "link.expired",
  "domain.verified", "domain.expired", "domain.suspended",
  "api_key.created", "api_key.revoked",
  "team.member_added", "team.member_removed",
  "subscription.upgraded", "subscription.downgraded",
  "bulk_import.completed", "conversion",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface BusEvent { accountId: string; type: EventType | "test"; data: Record<string, unknown>; timestamp: string }

type Listener = (event: BusEvent) => void;
const listeners = new Set<Listener>();

export function onEvent(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export async function emitEvent(db: DbOrTx, accountId: string, type: EventType, data: Record<string, unknown>): Promise<void> {
  const timestamp = new Date().toISOString();
  const payload = JSON.stringify({ event: type, timestamp, data });
  await db.execute(sql`
    insert into webhook_deliveries (endpoint_id, account_id, event_type, payload, status, next_retry_at)
    select id, account_id, ${type}, ${payload}::jsonb, 'pending', now()
    from webhook_endpoints
    where account_id = ${accountId} and is_active and ${type} = any(events)`);
  const event = { accountId, type, data, timestamp };
  queueMicrotask(() => { for (const l of listeners) l(event); });
}
