// The sharded cluster's DDL (CLICKHOUSE_CLUSTER). No cluster runs here, so every statement every
// migration generates in cluster mode goes through ClickHouse's own parser (chDB's formatQuery), its
// shape is checked table by table, and the shard-local half (local tables and their views) is executed
// in chDB to prove every view reads and feeds local tables. The single-server DDL stays byte for byte.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { ClickHouseClient } from "@clickhouse/client";
import { readClickhouseMigrations } from "../../server/storage/clickhouse/migrate";
import { CLUSTER_SETTINGS, clusterStatements } from "../../server/storage/clickhouse/cluster-ddl";
import { sharedChdb } from "../helpers/stores";

const DB = "svc";
const CLUSTER = "main";
const single = readClickhouseMigrations({ database: DB, cluster: undefined });
const clustered = readClickhouseMigrations({ database: DB, cluster: CLUSTER });
const allClustered = clustered.flatMap((m) => m.statements);

let chdb: ClickHouseClient;
beforeAll(async () => {
  chdb = await sharedChdb();
});

const rows = async <T>(query: string, params: Record<string, unknown> = {}) =>
  (await (await chdb.query({ query, query_params: params, format: "JSONEachRow" })).json()) as T[];
const format = async (statement: string) => (await rows<{ f: string }>("SELECT formatQuery({q:String}) AS f", { q: statement }))[0].f;

describe("without CLICKHOUSE_CLUSTER", () => {
  // SHA-256 of each migration's statements (joined by "\n;\n") as generated before cluster support.
  const BEFORE: Record<number, string> = {
    1: "c947366db413ac197f61478f230a360446d286d7563a6424487367c4fd44ad95",
    100: "46cbdbeac741926e552d4d6d4b30b280eb9880acdc8fa0a7bb9c73422efaaaf4",
    200: "dcd1234762da81f9aabe25fb6ef4c0107945e30771b4bdf7e0459e0fd978444f",
    201: "7e0fe05f1cdacc6216b7e7ca2da8721a811d3ba8cf1772d2d819690ef2a80370",
    202: "a2980aec92eb7c08594309dec8791b0c4faa98ff31071c9ccb644b1b3d7f41a7",
    203: "b52d636112e769dfd9c730cf1985e285b73cf8ac4ad2c898af937dbd6df8d4a2",
    206: "cbbe4a67e59ff8f1cc9d8b3caa46ac31a34d9270e37a0957445af259f1d9c655",
    207: "8a533550427c8a5ff421144d2d3a81940a3d640500ad4adadc9b262538096738",
    208: "b5fd9b6d4b51010ec2110cb8bce772a38d13c8820e1c33efa054b570a0cdbee0",
    209: "2b33b34ebbc479189ac7a0847fecf7442280b446fdb6145bbc03e098d06017a5",
  };
  test("the DDL of every existing migration is byte-identical to what it was", () => {
    const now = Object.fromEntries(
      single
        .filter((m) => m.version in BEFORE)
        .map((m) => [m.version, createHash("sha256").update(m.statements.join("\n;\n")).digest("hex")]),
    );
    expect(now).toEqual(BEFORE);
    for (const s of single.flatMap((m) => m.statements)) expect(s).not.toMatch(/ON CLUSTER|Replicated|Distributed|_local\b/);
  });
});

describe("with CLICKHOUSE_CLUSTER", () => {
  test("every statement of every migration parses with ClickHouse's own parser", async () => {
    expect(allClustered.length).toBeGreaterThan(single.flatMap((m) => m.statements).length);
    for (const statement of allClustered) {
      const formatted = await format(statement).catch((err) => {
        throw new Error(`${String(err).slice(0, 300)}\n--- in ---\n${statement}`);
      });
      expect(formatted.length).toBeGreaterThan(0);
    }
  });

  test("each table is a Replicated local table plus a Distributed table over it, sharded by account", async () => {
    const locals = new Set<string>();
    const distributed = new Map<string, string>();
    for (const statement of allClustered) {
      if (!statement.startsWith("CREATE TABLE")) continue;
      const f = await format(statement);
      const name = /^CREATE TABLE IF NOT EXISTS svc\.(\w+) ON CLUSTER main/.exec(f)?.[1];
      expect(name).toBeString();
      if (name!.endsWith("_local")) {
        expect(f).toMatch(/\nENGINE = Replicated(Aggregating|Summing|Replacing)?MergeTree(\(\w+\))?\n/);
        expect(f).toMatch(/\bORDER BY \(?account_id\b/); // the sharding key leads every sort key
        expect(f).toContain("replicated_deduplication_window = 10000");
        locals.add(name!);
      } else {
        expect(f).toBe(
          `CREATE TABLE IF NOT EXISTS svc.${name} ON CLUSTER main AS svc.${name}_local\nENGINE = Distributed(main, svc, ${name}_local, cityHash64(account_id))`,
        );
        distributed.set(name!, `${name}_local`);
      }
    }
    expect([...distributed.values()].sort()).toEqual([...locals].sort());
    // The application's table names (single-server CREATE TABLEs) are exactly the Distributed tables,
    // so every query and insert keeps its text.
    const singleTables = single
      .flatMap((m) => m.statements)
      .map((s) => /^CREATE TABLE IF NOT EXISTS svc\.(\w+)/.exec(s)?.[1])
      .filter(Boolean);
    const dropped = allClustered.map((s) => /^DROP TABLE IF EXISTS svc\.(\w+) /.exec(s)?.[1]).filter(Boolean);
    expect(new Set([...distributed.keys()])).toEqual(new Set(singleTables as string[]));
    expect(dropped).toContain("journey_session_spans_local"); // a dropped table goes on both levels
  });

  test("materialized views read and write only local tables; every other statement is ON CLUSTER or a backfill", async () => {
    let views = 0;
    for (const statement of allClustered) {
      const f = await format(statement);
      if (f.startsWith("CREATE MATERIALIZED VIEW")) {
        views++;
        const refs = [...f.matchAll(/\bsvc\.(\w+)/g)].map((m) => m[1]).slice(1); // after the view's own name
        expect(refs.length).toBeGreaterThanOrEqual(2);
        for (const ref of refs) expect(ref).toEndWith("_local");
      } else if (f.startsWith("INSERT INTO")) {
        // Backfills go through the Distributed tables (rows routed to their account's shard).
        expect(f).not.toContain("_local");
      } else {
        expect(f).toContain("ON CLUSTER main");
      }
    }
    expect(views).toBeGreaterThan(10);
  });

  test("a statement of an unknown shape, or a table without account_id, is refused", () => {
    const ctx = { db: DB, cluster: CLUSTER, tables: new Set<string>() };
    expect(() =>
      clusterStatements("CREATE TABLE IF NOT EXISTS svc.t ON CLUSTER main (\n  id UUID\n) ENGINE = ReplicatedMergeTree ORDER BY id", ctx),
    ).toThrow(/no account_id/);
    expect(() => clusterStatements("OPTIMIZE TABLE svc.clicks FINAL", ctx)).toThrow(/no cluster form/);
  });

  test("the query settings sent to a cluster are real ClickHouse settings", async () => {
    const names = Object.keys(CLUSTER_SETTINGS);
    const known = await rows<{ name: string }>("SELECT name FROM system.settings WHERE name IN {n:Array(String)}", { n: names });
    expect(known.map((r) => r.name).sort()).toEqual(names.sort());
  });

  describe("one shard's half, executed", () => {
    const db = `shard_${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
    afterAll(async () => {
      await chdb.command({ query: `DROP DATABASE IF EXISTS ${db}` });
    });

    test("local tables and views run on a real engine, and one insert into each raw local table feeds every local rollup", async () => {
      await chdb.command({ query: `CREATE DATABASE ${db}` });
      // What a shard runs, minus what needs Keeper and a cluster: no ON CLUSTER, no Replicated, no Distributed.
      const local = readClickhouseMigrations({ database: db, cluster: CLUSTER })
        .flatMap((m) => m.statements)
        .filter(
          (s) =>
            /^(CREATE MATERIALIZED VIEW|DROP VIEW)/.test(s) ||
            /^(CREATE TABLE IF NOT EXISTS|ALTER TABLE|DROP TABLE IF EXISTS) \w+\.\w+_local /.test(s),
        )
        .map((s) => s.replaceAll(` ON CLUSTER ${CLUSTER}`, "").replace(/ENGINE = Replicated/, "ENGINE = "));
      for (const query of local) await chdb.command({ query });
      const account = crypto.randomUUID();
      const link = crypto.randomUUID();
      await chdb.insert({
        table: `${db}.clicks_local`,
        format: "JSONEachRow",
        values: [
          {
            click_id: crypto.randomUUID(),
            timestamp: "2026-01-02 03:04:05.000",
            account_id: account,
            link_id: link,
            referrer: "x.example",
          },
        ],
      });
      const recent = new Date(Date.now() - 3_600_000).toISOString().replace("T", " ").slice(0, 23);
      await chdb.insert({
        table: `${db}.journey_events_local`,
        format: "JSONEachRow",
        values: ["page_view", "conversion"].map((event_type) => ({
          event_id: crypto.randomUUID(),
          // Recent: journey_visitor_hours keeps 92 days (TTL), and rows already expired are not stored.
          received_at: recent,
          timestamp: recent,
          account_id: account,
          link_id: link,
          visitor_id: "v",
          session_id: "s",
          event_type,
          event_name: "signup",
          page_url: "https://shop.example/",
        })),
      });
      const tables = (
        await rows<{ name: string }>("SELECT name FROM system.tables WHERE database = {db:String} AND engine NOT LIKE '%View'", { db })
      ).map((r) => r.name);
      expect(tables.length).toBeGreaterThan(10);
      const empty: string[] = [];
      for (const name of tables) {
        const [{ n }] = await rows<{ n: string }>(`SELECT count() AS n FROM ${db}.${name} WHERE account_id = {a:UUID}`, { a: account });
        if (Number(n) === 0) empty.push(name);
      }
      // Written by the journey job (journey/report-cache-job.ts), the analytics job (analytics/visitor-days-job.ts) and
      // imports (imports/repository.ts and the Plausible import, raw tables of their own) and the reports' compared
      // windows (reports/compared-store.ts), not by a view.
      expect(empty.sort()).toEqual([
        "click_visitor_days_local",
        "compared_windows_local",
        "imported_clicks_local",
        "imported_daily_local",
        "journey_closed_days_local",
        "journey_funnel_ranges_local",
        "journey_funnel_states_local",
        "journey_path_ranges_local",
        "journey_path_states_local",
        "journey_retention_ranges_local",
        "journey_retention_states_local",
      ]);
    });
  });
});
