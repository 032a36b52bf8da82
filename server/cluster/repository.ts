// The instance registry in Postgres: one row per instance, its heartbeat, and who is alive.
import { sql } from "drizzle-orm";
import type { Postgres } from "../storage/postgres/client";

/** Rows not heartbeating for this long are instances gone for good (scaled down without a clean stop). */
const FORGET_AFTER = "1 day";

/**
 * Records a heartbeat (the row is created on the first) and, in the same statement, sends `payload` on
 * `channel`: the heartbeat comes back to its own instance through Postgres's notification queue.
 */
export async function beat(pg: Postgres, id: string, channel: string, payload: string): Promise<void> {
  await pg.query(sql`
    with hb as (
      insert into service_instances (id) values (${id}::uuid)
      on conflict (id) do update set heartbeat_at = now()
      returning id)
    select pg_notify(${channel}, ${payload}) from hb`);
}

/** A new process of the instance: its start time, and rows of instances gone for good are dropped. */
export async function register(pg: Postgres, id: string): Promise<void> {
  await pg.query(sql`
    insert into service_instances (id) values (${id}::uuid)
    on conflict (id) do update set started_at = now(), heartbeat_at = now()`);
  await pg.query(sql`delete from service_instances where heartbeat_at < now() - ${FORGET_AFTER}::interval`);
}

/** A clean stop: the others stop waiting for this instance at once. */
export async function deregister(pg: Postgres, id: string): Promise<void> {
  await pg.query(sql`delete from service_instances where id = ${id}::uuid`);
}

/**
 * The other instances whose last heartbeat is less than `leaseMs` old, each with how much of that
 * lease is left (ms, by Postgres's clock) when the query ran.
 */
export async function liveInstances(pg: Postgres, selfId: string, leaseMs: number): Promise<{ id: string; leftMs: number }[]> {
  const rows = await pg.query<{ id: string; left_ms: number | string }>(sql`
    select id::text as id, (extract(epoch from (heartbeat_at - now())) * 1000 + ${leaseMs})::float8 as left_ms
    from service_instances
    where heartbeat_at > now() - make_interval(secs => ${leaseMs / 1000}) and id <> ${selfId}::uuid`);
  return rows.map((r) => ({ id: r.id, leftMs: Number(r.left_ms) }));
}
