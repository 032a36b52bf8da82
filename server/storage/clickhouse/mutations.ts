// A mark of the mutations of some tables. An erasure (ALTER … DELETE, or a lightweight DELETE) is a row of
// system.mutations; the mark moves when one is added, when one finishes (is_done), and when a finished one
// is cleaned away (ClickHouse keeps only the last `finished_mutations_to_keep`, 100 by default), so a count
// alone can stand still. A state built from those tables and checked against the mark holds only while
// no mutation has changed them. With CLICKHOUSE_CLUSTER the rows live in the `*_local` tables, whose
// mutations (ON CLUSTER: one on each node, the queried one's included) count too. Reading it needs
// SELECT on system.mutations (docs/scaling.md).
import type { Clickhouse } from "./client";
import { LOCAL_SUFFIX } from "./cluster-ddl";
import type { ClickhouseTable } from "./tables";

/** 2^52: the mark stays exact as a JavaScript number. */
const MARK_MODULUS = 4_503_599_627_370_496;

/** A scalar subquery: a number that changes with the tables' set of mutations and their progress. Binds {mark_db:String}. */
export const mutationMarkSql = (tables: readonly ClickhouseTable[]) =>
  `(SELECT sum(cityHash64(mutation_id, is_done)) % ${MARK_MODULUS} FROM system.mutations
    WHERE database = {mark_db:String} AND table IN (${tables.flatMap((t) => [`'${t}'`, `'${t}${LOCAL_SUFFIX}'`]).join(", ")}))`;

/** The parameter the mark binds. */
export const mutationMarkParams = (ch: Clickhouse) => ({ mark_db: ch.database });
