// The DDL of a sharded cluster (CLICKHOUSE_CLUSTER), derived from the migrations' single-server text.
//
// Every table `T` becomes a Replicated local table `T_local` on every shard plus a Distributed table
// `T` over them, sharded by cityHash64(account_id): one account's rows, views and rollups all live on
// one shard. Materialized views read and write the local tables, so each shard aggregates its own
// inserts. The application keeps using `T`: inserts go through the Distributed table synchronously
// (CLUSTER_SETTINGS) and reads fan out with inner subqueries and joins kept shard-local.
//
// Statements are rewritten by their shape (the migrations are ours and follow a few forms); anything
// else is refused, so a new migration cannot silently create an unsharded table.

/** Settings every query needs against a cluster (sent by the client in cluster mode). */
export const CLUSTER_SETTINGS = {
  // An insert returns only once every shard has its part, so the spool's checkpoint never moves past
  // rows that sit in a Distributed table's local queue (which the deduplication token does not cover).
  insert_distributed_sync: 1,
  // IN and JOIN subqueries over Distributed tables run on each shard against its local tables: every
  // table is sharded by account, so the rows a subquery needs are on the same shard.
  distributed_product_mode: "local",
  // Queries filter by account_id: only the account's shard is asked.
  optimize_skip_unused_shards: 1,
} as const;

export const SHARDING_KEY = "cityHash64(account_id)";
export const LOCAL_SUFFIX = "_local";

/** Per cluster DDL: the tables created so far (migrations run in order), to rewrite references to them. */
export interface ClusterDdlContext {
  db: string;
  cluster: string;
  tables: Set<string>;
}

const ident = String.raw`[A-Za-z_][A-Za-z0-9_]*`;
const CREATE_TABLE = new RegExp(String.raw`^CREATE TABLE IF NOT EXISTS (${ident})\.(${ident}) ON CLUSTER \S+ \(`);
const CREATE_VIEW = new RegExp(String.raw`^CREATE MATERIALIZED VIEW IF NOT EXISTS (${ident})\.(${ident}) ON CLUSTER \S+ TO `);
const ALTER_TABLE = new RegExp(String.raw`^ALTER TABLE (${ident})\.(${ident}) ON CLUSTER \S+\s+ADD COLUMN `);
const DROP_VIEW = new RegExp(String.raw`^DROP VIEW IF EXISTS (${ident})\.(${ident}) ON CLUSTER \S+$`);
const DROP_TABLE = new RegExp(String.raw`^DROP TABLE IF EXISTS (${ident})\.(${ident}) ON CLUSTER \S+$`);
const INSERT_SELECT = new RegExp(String.raw`^INSERT INTO (${ident})\.(${ident})[\s(]`);

/** Replaces `db.T` by `db.T_local` for every known table T. */
function toLocal(sql: string, ctx: ClusterDdlContext): string {
  return sql.replace(new RegExp(String.raw`\b${ctx.db}\.(${ident})\b`, "g"), (whole, name: string) =>
    ctx.tables.has(name) ? `${ctx.db}.${name}${LOCAL_SUFFIX}` : whole,
  );
}

function distributedTable(ctx: ClusterDdlContext, name: string): string {
  const local = `${name}${LOCAL_SUFFIX}`;
  return (
    `CREATE TABLE IF NOT EXISTS ${ctx.db}.${name} ON CLUSTER ${ctx.cluster} AS ${ctx.db}.${local}\n` +
    `ENGINE = Distributed(${ctx.cluster}, ${ctx.db}, ${local}, ${SHARDING_KEY})`
  );
}

/** Replicated tables keep the same deduplication window as the single server's non-replicated ones. */
function withReplicatedWindow(create: string): string {
  if (/\bSETTINGS\b[^)]*$/.test(create)) return `${create}, replicated_deduplication_window = 10000`;
  return `${create}\nSETTINGS replicated_deduplication_window = 10000`;
}

/** One single-server statement (placeholders already filled for the cluster) → its cluster statements. */
export function clusterStatements(statement: string, ctx: ClusterDdlContext): string[] {
  let m = CREATE_TABLE.exec(statement);
  if (m) {
    const name = m[2];
    if (!/\n\s*account_id UUID,/.test(statement)) throw new Error(`cluster DDL: table ${name} has no account_id to shard by`);
    if (!/\) ENGINE = Replicated\w*MergeTree\b/.test(statement))
      throw new Error(`cluster DDL: table ${name} is not a Replicated MergeTree`);
    const local = statement.replace(`${ctx.db}.${name} `, `${ctx.db}.${name}${LOCAL_SUFFIX} `);
    ctx.tables.add(name);
    return [withReplicatedWindow(local), distributedTable(ctx, name)];
  }
  if ((m = CREATE_VIEW.exec(statement))) return [toLocal(statement, ctx)];
  if ((m = ALTER_TABLE.exec(statement))) {
    // The Distributed table needs the column too (reads select it through there).
    if (!ctx.tables.has(m[2])) throw new Error(`cluster DDL: ALTER of unknown table ${m[2]}`);
    return [toLocal(statement, ctx), statement];
  }
  if ((m = DROP_VIEW.exec(statement))) return [statement];
  if ((m = DROP_TABLE.exec(statement))) {
    const name = m[2];
    if (!ctx.tables.has(name)) return [statement];
    ctx.tables.delete(name);
    return [statement, statement.replace(`${ctx.db}.${name} `, `${ctx.db}.${name}${LOCAL_SUFFIX} `)];
  }
  // Backfills read and write through the Distributed tables: rows are routed to their account's shard,
  // where the local views see them as they would see a spool insert.
  if (INSERT_SELECT.test(statement)) return [statement];
  throw new Error(`cluster DDL: no cluster form for statement: ${statement.slice(0, 120)}`);
}
