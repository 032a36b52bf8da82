// The Postgres driver as the features use it, on this pass's store (embedded PGlite, or the Postgres server
// of SVC_TEST_DATABASE_URL through Bun's SQL client): every one of hundreds of concurrent queries and
// transactions answers (a half-sent query used to leave its connection waiting in ClientRead, and the
// queries behind it waited forever), jsonb and arrays are stored as values, constraint violations are
// recognised and leave the pool usable, and LISTEN comes back after its connection is lost.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { openPostgres, sql, type Postgres } from "../../server/storage/postgres/client";
import { isForeignKeyViolation, isUniqueViolation } from "../../server/storage/postgres/errors";
import { accounts, apiKeys } from "../../server/storage/postgres/schema";
import { preparePostgres } from "../helpers/stores";

let pg: Postgres;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "svc-pg-driver-"));
  pg = await openPostgres({ databaseUrl: await preparePostgres(dataDir), dataDir });
});
afterAll(async () => {
  await pg?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Settles every promise, or names the ones that have not answered after `ms` (instead of waiting forever). */
async function allAnswer<T>(work: Promise<T>[], ms: number): Promise<PromiseSettledResult<T>[]> {
  const done = new Set<number>();
  const tracked = work.map((p, i) => p.finally(() => done.add(i)));
  let timer: Timer | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const open = work.map((_, i) => i).filter((i) => !done.has(i));
      reject(new Error(`${open.length} of ${work.length} operations never answered (first: #${open.slice(0, 5).join(", #")})`));
    }, ms);
  });
  try {
    return await Promise.race([Promise.allSettled(tracked), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const newAccount = async (name = `acct-${crypto.randomUUID().slice(0, 8)}`, limitOverrides = {}) =>
  (await pg.db.insert(accounts).values({ name, tier: "scale", limitOverrides }).returning())[0];

describe("values", () => {
  test("jsonb written through drizzle, and JSON text cast through text, is stored as the value, not as a JSON string", async () => {
    const account = await newAccount(undefined, { clicks_per_month: 5, journey_events_per_month: null });
    const [row] = await pg.query<{ kind: string; clicks: string; text: string }>(
      sql`select jsonb_typeof(limit_overrides) as kind, limit_overrides->>'clicks_per_month' as clicks,
            jsonb_typeof(${JSON.stringify([{ a: 1 }, { a: 2 }])}::text::jsonb) as text
          from accounts where id = ${account.id}`,
    );
    expect(row).toEqual({ kind: "object", clicks: "5", text: "array" });
    const [read] = await pg.db.select().from(accounts).where(eq(accounts.id, account.id));
    expect(read.limitOverrides).toEqual({ clicks_per_month: 5, journey_events_per_month: null });
  });

  test("text[] and timestamps come back as the features read them, typed and raw", async () => {
    const account = await newAccount();
    const scopes = ["links:read", "a,b", 'quote"d', "sp ace"];
    const [key] = await pg.db
      .insert(apiKeys)
      .values({ accountId: account.id, name: "k", keyHash: crypto.randomUUID(), prefix: "svc_", scopes })
      .returning();
    expect(key.scopes).toEqual(scopes);
    expect(key.createdAt).toBeInstanceOf(Date);
    const [raw] = await pg.query<{ scopes: string[]; created_at: Date | string; n: number | string }>(
      sql`select scopes, created_at, (select count(*) from api_keys where account_id = ${account.id}) as n from api_keys where id = ${key.id}`,
    );
    expect(raw.scopes).toEqual(scopes);
    expect(new Date(raw.created_at).getTime()).toBe(key.createdAt.getTime());
    expect(Number(raw.n)).toBe(1);
  });
});

describe("constraint violations", () => {
  test("are recognised, roll their transaction back, and leave every connection usable", async () => {
    const account = await newAccount();
    const hash = crypto.randomUUID();
    await pg.db.insert(apiKeys).values({ accountId: account.id, name: "k", keyHash: hash, prefix: "svc_", scopes: [] });
    const attempts = Array.from({ length: 40 }, (_, i) =>
      pg.db.transaction(async (tx) => {
        await tx
          .insert(apiKeys)
          .values({ accountId: account.id, name: `dup-${i}`, keyHash: crypto.randomUUID(), prefix: "svc_", scopes: [] });
        await tx.insert(apiKeys).values({ accountId: account.id, name: `dup-${i}`, keyHash: hash, prefix: "svc_", scopes: [] });
      }),
    );
    const settled = await allAnswer(attempts, 60_000);
    expect(settled.every((s) => s.status === "rejected" && isUniqueViolation(s.reason))).toBe(true);
    const fk = await pg.db
      .insert(apiKeys)
      .values({ accountId: crypto.randomUUID(), name: "k", keyHash: crypto.randomUUID(), prefix: "svc_", scopes: [] })
      .catch((e) => e);
    expect(isForeignKeyViolation(fk)).toBe(true);
    expect(isUniqueViolation(fk)).toBe(false);
    // Nothing of the rolled-back transactions remains, and the pool answers on every connection.
    const rows = await pg.query<{ n: number | string }>(sql`select count(*) as n from api_keys where account_id = ${account.id}`);
    expect(Number(rows[0].n)).toBe(1);
    const pings = await allAnswer(
      Array.from({ length: 30 }, () => pg.query(sql`select 1`)),
      30_000,
    );
    expect(pings.every((p) => p.status === "fulfilled")).toBe(true);
  });

  test("a violation inside a savepoint leaves the surrounding transaction to commit", async () => {
    const account = await newAccount();
    const hash = crypto.randomUUID();
    await pg.db.transaction(async (tx) => {
      await tx.insert(apiKeys).values({ accountId: account.id, name: "first", keyHash: hash, prefix: "svc_", scopes: [] });
      const err = await tx
        .transaction((sp) => sp.insert(apiKeys).values({ accountId: account.id, name: "again", keyHash: hash, prefix: "svc_", scopes: [] }))
        .catch((e) => e);
      expect(isUniqueViolation(err)).toBe(true);
      await tx.insert(apiKeys).values({ accountId: account.id, name: "second", keyHash: crypto.randomUUID(), prefix: "svc_", scopes: [] });
    });
    const names = await pg.db.select({ name: apiKeys.name }).from(apiKeys).where(eq(apiKeys.accountId, account.id));
    expect(names.map((n) => n.name).sort()).toEqual(["first", "second"]);
  });
});

describe("under concurrency", () => {
  test("hundreds of concurrent transactions, queries and large parameters all answer, and every transaction counts once", async () => {
    const account = await newAccount();
    const ids = (
      await pg.db
        .insert(apiKeys)
        .values(
          Array.from({ length: 8 }, (_, i) => ({
            accountId: account.id,
            name: `counter-${i}`,
            keyHash: crypto.randomUUID(),
            prefix: "svc_",
            scopes: [],
          })),
        )
        .returning()
    ).map((k) => k.id);
    // Large parameters fill the socket's send buffer, where a client's partial write shows; small ones pipeline.
    const big = (i: number) => `${i}:`.padEnd(64 * 1024 + (i % 7) * 40_000, "x");
    const work: Promise<unknown>[] = [];
    const TRANSACTIONS = 160;
    for (let i = 0; i < 480; i++) {
      const id = ids[i % ids.length];
      if (i % 3 === 0)
        work.push(
          pg.db.transaction(async (tx) => {
            const [row] = await pg.query<{ name: string }>(sql`select name from api_keys where id = ${id} for update`, tx);
            await tx
              .update(apiKeys)
              .set({ name: `${row.name}+` })
              .where(eq(apiKeys.id, id));
          }),
        );
      else if (i % 3 === 1) work.push(pg.query(sql`select length(${big(i)}::text) as n, ${i}::int as i`));
      else work.push(pg.query(sql`select id, name, scopes from api_keys where account_id = ${account.id} order by name limit 3`));
    }
    const settled = await allAnswer(work, 90_000);
    const failed = settled.filter((s) => s.status === "rejected");
    expect(failed.map((f) => String((f as PromiseRejectedResult).reason))).toEqual([]);
    for (let i = 1; i < 480; i += 3) {
      const [row] = (settled[i] as PromiseFulfilledResult<{ n: number | string; i: number }[]>).value;
      expect([Number(row.n), row.i]).toEqual([big(i).length, i]);
    }
    const rows = await pg.db.select({ name: apiKeys.name }).from(apiKeys).where(eq(apiKeys.accountId, account.id));
    const increments = rows.reduce((n, r) => n + (r.name.length - r.name.replace(/\+/g, "").length), 0);
    expect(increments).toBe(TRANSACTIONS);
  }, 120_000);
});

describe("the event loop", () => {
  test("a query answers while an earlier immediate waits for it in a nested event loop", async () => {
    // bun:test's expect(promise).resolves, called from an immediate (as Playwright's in-process messages
    // are delivered), runs the event loop inside that immediate, and Bun runs no other immediate of the
    // batch meanwhile: a driver that sends a query from a setImmediate (postgres.js did) never answers.
    await pg.query(sql`select 1`);
    const started = performance.now();
    await new Promise<void>((done, fail) => {
      setImmediate(async () => {
        try {
          await expect(query).resolves.toEqual([{ x: 2 }]);
          done();
        } catch (err) {
          fail(err);
        }
      });
      const query = pg.query<{ x: number }>(sql`select 2::int as x`);
    });
    expect(performance.now() - started).toBeLessThan(10_000);
  }, 20_000);
});

describe("LISTEN and NOTIFY", () => {
  test("a notification arrives; on a server, after the listening connection is lost, it is listened to again", async () => {
    const channel = `svc_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const received: string[] = [];
    let relistened = 0;
    await pg.listen(
      channel,
      (p) => received.push(p),
      () => relistened++,
    );
    const arrived = async (payload: string) => {
      await pg.notify(channel, payload);
      for (let i = 0; i < 400 && !received.includes(payload); i++) await Bun.sleep(25);
      expect(received).toContain(payload);
    };
    await arrived("first");
    expect(relistened).toBe(0);
    if (pg.kind === "pglite") return;
    const killed = await pg.query<{ ended: boolean }>(
      sql`select pg_terminate_backend(pid) as ended from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and query ilike ${`listen%${channel}%`}`,
    );
    expect(killed).toEqual([{ ended: true }]);
    for (let i = 0; i < 400 && relistened === 0; i++) await Bun.sleep(25);
    expect(relistened).toBe(1);
    await arrived("after the reconnect");
  }, 30_000);
});
