// Postgres access for webhook endpoints and deliveries (the deliveries table is also the dispatch queue).
import { and, count, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { webhookDeliveries, webhookEndpoints } from "../storage/postgres/schema";
import type { DbOrTx, Postgres } from "../storage/postgres/client";
import type { DeliveryRow, EndpointRow } from "./model";

const OPEN = ["pending", "retrying"];

/** Whether an active endpoint of the account subscribes to `type`. */
export const hasSubscriber = async (db: DbOrTx, accountId: string, type: string) =>
  (
    await db
      .select({ id: webhookEndpoints.id })
      .from(webhookEndpoints)
      .where(
        and(eq(webhookEndpoints.accountId, accountId), eq(webhookEndpoints.isActive, true), sql`${type} = any(${webhookEndpoints.events})`),
      )
      .limit(1)
  ).length > 0;

/** One pending delivery per payload (a JSON array) and subscribed, active endpoint, in payload order. */
export const queueDeliveries = (db: DbOrTx, accountId: string, type: string, payloads: string) =>
  db.execute(sql`
    insert into webhook_deliveries (endpoint_id, account_id, event_type, payload, status, next_retry_at)
    select e.id, e.account_id, ${type}, p.payload, 'pending', now()
    from webhook_endpoints e cross join jsonb_array_elements(${payloads}::text::jsonb) with ordinality as p(payload, n)
    where e.account_id = ${accountId} and e.is_active and ${type} = any(e.events)
    order by p.n`);

export const countEndpoints = async (db: DbOrTx, accountId: string) =>
  (await db.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.accountId, accountId)))[0].n;

export const insertEndpoint = async (db: DbOrTx, v: typeof webhookEndpoints.$inferInsert) =>
  (await db.insert(webhookEndpoints).values(v).returning())[0];

export const listEndpointRows = (db: DbOrTx, accountId: string) =>
  db.select().from(webhookEndpoints).where(eq(webhookEndpoints.accountId, accountId)).orderBy(desc(webhookEndpoints.createdAt));

export const findEndpoint = async (db: DbOrTx, accountId: string, id: string): Promise<EndpointRow | undefined> =>
  (
    await db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.accountId, accountId)))
  )[0];

export const updateEndpointRow = async (db: DbOrTx, accountId: string, id: string, v: Partial<typeof webhookEndpoints.$inferInsert>) =>
  (
    await db
      .update(webhookEndpoints)
      .set(v)
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.accountId, accountId)))
      .returning()
  )[0];

export const deleteEndpointRow = async (db: DbOrTx, accountId: string, id: string) =>
  (
    await db
      .delete(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.accountId, accountId)))
      .returning()
  )[0];

export const listDeliveryRows = (db: DbOrTx, endpointId: string, limit: number) =>
  db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);

export const findDelivery = async (db: DbOrTx, id: string): Promise<DeliveryRow | undefined> =>
  (await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0];

/** Inserts a delivery already leased to the caller, who attempts it at once (the test endpoint). */
export const insertLeasedDelivery = async (
  db: DbOrTx,
  v: { endpointId: string; accountId: string; eventType: string; payload: unknown; leaseSeconds: number; instanceId: string },
) =>
  (
    await db
      .insert(webhookDeliveries)
      .values({
        endpointId: v.endpointId,
        accountId: v.accountId,
        eventType: v.eventType,
        payload: v.payload,
        status: "pending",
        nextRetryAt: sql`now()`,
        lockedUntil: sql`now() + make_interval(secs => ${v.leaseSeconds})`,
        lockedBy: v.instanceId,
      })
      .returning()
  )[0];

/**
 * Leases up to `limit` due deliveries of active endpoints to `instanceId`. SKIP LOCKED plus the lease
 * make this safe with several instances: a row is attempted by one of them until its lease runs out.
 */
export async function claimDueDeliveries(pg: Postgres, limit: number, leaseSeconds: number, instanceId: string): Promise<string[]> {
  const rows = await pg.query<{ id: string }>(sql`
    with due as (
      select d.id from webhook_deliveries d
      join webhook_endpoints e on e.id = d.endpoint_id and e.is_active
      where d.status in ('pending', 'retrying') and d.next_retry_at <= now()
        and (d.locked_until is null or d.locked_until < now())
      order by d.next_retry_at
      limit ${limit}
      for update of d skip locked)
    update webhook_deliveries d set locked_until = now() + make_interval(secs => ${leaseSeconds}), locked_by = ${instanceId}::uuid
    from due where d.id = due.id
    returning d.id`);
  return rows.map((r) => r.id);
}

export const loadJobs = (db: DbOrTx, ids: string[]) =>
  db
    .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(inArray(webhookDeliveries.id, ids));

export const releaseLease = (db: DbOrTx, id: string) =>
  db.update(webhookDeliveries).set({ lockedUntil: null, lockedBy: null }).where(eq(webhookDeliveries.id, id));

/** Embedded mode only: the process owns its database, so leases of a dead process can go at once. */
export const releaseAllLeases = (db: DbOrTx) =>
  db.update(webhookDeliveries).set({ lockedUntil: null, lockedBy: null }).where(inArray(webhookDeliveries.status, OPEN));

/**
 * Leases an instance's previous process held when it died (it never releases them itself): at start,
 * before this process leases anything, so none of its own are among them. Returns how many.
 */
export const releaseLeasesOf = async (db: DbOrTx, instanceId: string) =>
  (
    await db
      .update(webhookDeliveries)
      .set({ lockedUntil: null, lockedBy: null })
      .where(
        and(eq(webhookDeliveries.lockedBy, instanceId), isNotNull(webhookDeliveries.lockedUntil), inArray(webhookDeliveries.status, OPEN)),
      )
      .returning({ id: webhookDeliveries.id })
  ).length;

export const updateDelivery = async (db: DbOrTx, id: string, v: PgUpdateSetSource<typeof webhookDeliveries>) =>
  (await db.update(webhookDeliveries).set(v).where(eq(webhookDeliveries.id, id)).returning())[0];

/** What one attempt leaves on its delivery, whatever the outcome. */
export type AttemptFields = Pick<DeliveryRow, "attemptNumber" | "httpStatus" | "responseBody" | "errorMessage" | "lockedUntil">;

export const markDelivered = (db: DbOrTx, id: string, v: AttemptFields) =>
  updateDelivery(db, id, { ...v, status: "delivered", deliveredAt: sql`now()`, nextRetryAt: null });

/** A failed attempt: `retrying` again in `retryInSeconds`, or `failed` for good when that is null. */
export const markFailedAttempt = (db: DbOrTx, id: string, v: AttemptFields, retryInSeconds: number | null) =>
  updateDelivery(db, id, {
    ...v,
    status: retryInSeconds === null ? "failed" : "retrying",
    nextRetryAt: retryInSeconds === null ? null : sql`now() + make_interval(secs => ${retryInSeconds})`,
  });

export const resetFailures = (db: DbOrTx, endpointId: string) =>
  db.update(webhookEndpoints).set({ consecutiveFailures: 0 }).where(eq(webhookEndpoints.id, endpointId));

/** Counts one failed attempt; disables the endpoint at `disableAt` failures, or at once when `gone`. */
export async function countFailure(db: DbOrTx, endpointId: string, disableAt: number, gone: boolean) {
  const before = (
    await db.select({ isActive: webhookEndpoints.isActive }).from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId)).for("update")
  )[0];
  if (!before) return undefined;
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      consecutiveFailures: sql`${webhookEndpoints.consecutiveFailures} + 1`,
      isActive: sql`case when ${gone} or ${webhookEndpoints.consecutiveFailures} + 1 >= ${disableAt} then false else ${webhookEndpoints.isActive} end`,
    })
    .where(eq(webhookEndpoints.id, endpointId))
    .returning({ isActive: webhookEndpoints.isActive });
  return { wasActive: before.isActive, isActive: row.isActive };
}

/** A disabled endpoint's open deliveries stop: they end as failed, so no old backlog floods it when re-enabled. */
export const stopOpenDeliveries = (db: DbOrTx, endpointId: string, reason: string) =>
  db
    .update(webhookDeliveries)
    .set({ status: "failed", errorMessage: reason, nextRetryAt: null, lockedUntil: null, lockedBy: null })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), inArray(webhookDeliveries.status, OPEN)));
