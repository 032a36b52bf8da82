// `bun run bench postgres-driver`: the Postgres server driver's cost per query. Bun's SQL client as the
// service uses it (named statements, drizzle-orm/bun-sql) against postgres.js (named statements,
// drizzle-orm/postgres-js: the driver it replaced) and Bun's SQL client with unnamed statements
// (`prepare: false`: parsed and planned every time, and not pipelined). Each round runs the three in
// turn on the same migrated database: the API-key lookup (a join by a unique hash) one at a time and
// 64 at once, and a row-locking transaction 16 at once; `select 1` one at a time is the round trip
// alone (the machine's baseline). Needs BENCH_DATABASE_URL or
// SVC_TEST_DATABASE_URL (a server URL; the bench makes and drops a database of its own there).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { eq, sql } from "drizzle-orm";
import { drizzle as bunDrizzle } from "drizzle-orm/bun-sql";
import { drizzle as pgjsDrizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { openPostgres } from "../../server/storage/postgres/client";
import * as schema from "../../server/storage/postgres/schema";
import { freshServerDatabase } from "../helpers/stores";
import { table } from "./lib-server";

const serverUrl = process.env.BENCH_DATABASE_URL || process.env.SVC_TEST_DATABASE_URL;
if (!serverUrl) {
  console.error("Set BENCH_DATABASE_URL (or SVC_TEST_DATABASE_URL) to a Postgres server URL.");
  process.exit(2);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

const url = await freshServerDatabase(serverUrl, "svc_bench");
const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-pg-"));
const service = await openPostgres({ databaseUrl: url, dataDir }); // migrates, and is the driver under test
const [account] = await service.db.insert(schema.accounts).values({ name: "bench", tier: "scale" }).returning();
const hashes = Array.from({ length: 1000 }, () => crypto.randomUUID());
await service.db
  .insert(schema.apiKeys)
  .values(hashes.map((h, i) => ({ accountId: account.id, name: `k${i}`, prefix: "svc_", keyHash: h, scopes: ["links:read"] })));
const counters = (
  await service.db
    .insert(schema.apiKeys)
    .values(Array.from({ length: 64 }, (_, i) => ({ accountId: account.id, name: "0", prefix: "svc_", keyHash: `c${i}`, scopes: [] })))
    .returning({ id: schema.apiKeys.id })
).map((r) => r.id);

const pgjs = postgres(url, { max: 10, onnotice: () => {} });
const unnamed = new SQL({ url, max: 10, prepare: false });
const drivers: { name: string; db: any }[] = [
  { name: "Bun.SQL (the service)", db: service.db },
  { name: "postgres.js (before)", db: pgjsDrizzle(pgjs, { schema }) },
  { name: "Bun.SQL, unnamed statements", db: bunDrizzle({ client: unnamed, schema }) },
];

/** The API-key lookup of every authenticated request (server/accounts/api-keys.ts), by a random hash. */
const lookup = (db: any) =>
  db.execute(sql`
    select k.id as key_id, k.scopes, k.allowed_ips, a.id as account_id, a.name, a.tier, a.limit_overrides, a.created_at
    from api_keys k join accounts a on a.id = k.account_id
    where k.key_hash = ${hashes[Math.floor(Math.random() * hashes.length)]} and k.revoked_at is null`);
const locked = (db: any) =>
  db.transaction(async (tx: any) => {
    const id = counters[Math.floor(Math.random() * counters.length)];
    const [row] = await tx.select({ name: schema.apiKeys.name }).from(schema.apiKeys).where(eq(schema.apiKeys.id, id)).for("update");
    await tx
      .update(schema.apiKeys)
      .set({ name: String(Number(row.name) + 1) })
      .where(eq(schema.apiKeys.id, id));
  });

/** Operations per second with `concurrency` callers for SECONDS; p50 of each call in ms. */
async function measure(op: () => Promise<unknown>, concurrency: number) {
  const times: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await op();
        times.push(performance.now() - t0);
      }
    }),
  );
  times.sort((a, b) => a - b);
  return { perSecond: times.length / SECONDS, p50: times[Math.floor(times.length / 2)] };
}

/** The machine's baseline: a round trip that asks the server for nothing. */
const trivial = (db: any) => db.execute(sql`select 1`);
const cases = [
  { name: "select 1, 1 at a time", op: trivial, concurrency: 1 },
  { name: "key lookup, 1 at a time", op: lookup, concurrency: 1 },
  { name: "key lookup, 64 at once", op: lookup, concurrency: 64 },
  { name: "locking transaction, 16 at once", op: locked, concurrency: 16 },
];
const results = new Map<string, { perSecond: number[]; p50: number[] }>();
for (const d of drivers) for (let i = 0; i < 50; i++) await lookup(d.db); // connections open, statements known
for (let round = 0; round < ROUNDS; round++)
  for (const c of cases)
    for (const d of drivers) {
      const r = await measure(() => c.op(d.db), c.concurrency);
      const key = `${c.name}|${d.name}`;
      const acc = results.get(key) ?? { perSecond: [], p50: [] };
      acc.perSecond.push(r.perSecond);
      acc.p50.push(r.p50);
      results.set(key, acc);
    }

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows: Record<string, string>[] = [];
for (const c of cases) {
  const base = median(results.get(`${c.name}|${drivers[1].name}`)!.perSecond);
  for (const d of drivers) {
    const r = results.get(`${c.name}|${d.name}`)!;
    rows.push({
      case: c.name,
      driver: d.name,
      "ops/s": median(r.perSecond).toFixed(0),
      "p50 ms": median(r.p50).toFixed(2),
      "× postgres.js": (median(r.perSecond) / base).toFixed(2),
    });
  }
}
console.log(`${ROUNDS} alternating rounds of ${SECONDS} s per case and driver; medians; ratio = ops/s ÷ postgres.js's\n`);
table(rows);

await pgjs.end({ timeout: 5 });
await unnamed.close({ timeout: 5 });
await service.close();
rmSync(dataDir, { recursive: true, force: true });
const admin = new SQL({ url: serverUrl, max: 1 });
await admin.unsafe(`drop database ${new URL(url).pathname.slice(1)} with (force)`);
await admin.close();
