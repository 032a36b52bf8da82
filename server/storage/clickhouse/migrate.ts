// A small versioned DDL runner: migrations/NNNN-name.sql, applied in order, recorded in schema_migrations.
// Placeholders: {{db}}, {{on_cluster}} (empty, or ON CLUSTER name), {{replicated}} (empty, or Replicated).
// With a cluster, each statement is then rewritten into its sharded form (cluster-ddl.ts).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Clickhouse } from "./client";
import { clusterStatements, type ClusterDdlContext } from "./cluster-ddl";

const MIGRATIONS_DIR = join(import.meta.dir, "migrations");

export interface ClickhouseMigration {
  version: number;
  name: string;
  statements: string[];
}

export function readClickhouseMigrations(ch: Pick<Clickhouse, "database" | "cluster">): ClickhouseMigration[] {
  const migrations = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}-.+\.sql$/.test(f))
    .sort()
    .map((file) => {
      const text = readFileSync(join(MIGRATIONS_DIR, file), "utf8")
        .replaceAll("{{db}}", ch.database)
        .replaceAll("{{on_cluster}}", ch.cluster ? `ON CLUSTER ${ch.cluster}` : "")
        .replaceAll("{{replicated}}", ch.cluster ? "Replicated" : "");
      const statements = text
        .split(/;\s*$/m)
        .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
        .filter(Boolean);
      return { version: Number(file.slice(0, 4)), name: file.slice(5, -4), statements };
    });
  if (!ch.cluster) return migrations;
  const ctx: ClusterDdlContext = { db: ch.database, cluster: ch.cluster, tables: new Set() };
  return migrations.map((m) => ({ ...m, statements: m.statements.flatMap((s) => clusterStatements(s, ctx)) }));
}

export async function applyClickhouseMigrations(ch: Clickhouse): Promise<void> {
  const onCluster = ch.cluster ? `ON CLUSTER ${ch.cluster}` : "";
  await ch.command(`CREATE DATABASE IF NOT EXISTS ${ch.database} ${onCluster}`);
  await ch.command(
    `CREATE TABLE IF NOT EXISTS ${ch.database}.schema_migrations ${onCluster} (version UInt32, name String, applied_at DateTime DEFAULT now())
     ENGINE = ${ch.cluster ? "Replicated" : ""}MergeTree ORDER BY version`,
  );
  // On a cluster each shard records what it was connected for; the migrations themselves ran ON CLUSTER.
  const from = ch.cluster ? `cluster('${ch.cluster}', ${ch.database}.schema_migrations)` : `${ch.database}.schema_migrations`;
  const applied = new Set((await ch.query<{ version: number }>(`SELECT version FROM ${from}`)).map((r) => Number(r.version)));
  for (const m of readClickhouseMigrations(ch)) {
    if (applied.has(m.version)) continue;
    for (const statement of m.statements) await ch.command(statement);
    await ch.insert("schema_migrations", [{ version: m.version, name: m.name }]);
  }
}
