// Applies the committed drizzle-kit migrations, serialized across instances by an advisory lock.
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { Postgres } from "./client";

const MIGRATIONS_FOLDER = join(import.meta.dir, "migrations");
const MIGRATION_LOCK_ID = 727_001; // arbitrary, constant for this application

export async function applyMigrations(pg: Postgres): Promise<void> {
  if (pg.kind === "pglite") {
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    await migrate(pg.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
    return;
  }
  // Session-level advisory locks belong to one connection: hold it on a transaction's connection
  // with the transaction-scoped variant, and run the migrator inside the same transaction.
  const { readMigrationFiles } = await import("drizzle-orm/migrator");
  const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  await pg.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`);
    await tx.execute(sql`create schema if not exists drizzle`);
    await tx.execute(
      sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`,
    );
    const done = await pg.query<{ created_at: string }>(
      sql`select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`,
      tx,
    );
    const lastApplied = done[0] ? Number(done[0].created_at) : 0;
    for (const m of migrations) {
      if (m.folderMillis <= lastApplied) continue;
      for (const statement of m.sql) if (statement.trim()) await tx.execute(sql.raw(statement));
      await tx.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${m.hash}, ${m.folderMillis})`);
    }
  });
}

/**
 * Runs `fn` while holding a Postgres advisory lock (a no-op on embedded PGlite, which one process owns):
 * the ClickHouse migrations of several instances starting at once run one after the other this way.
 */
export async function withAdvisoryLock<T>(pg: Postgres, lockId: number, fn: () => Promise<T>): Promise<T> {
  if (pg.kind === "pglite") return fn();
  return pg.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${lockId})`);
    return fn();
  });
}
