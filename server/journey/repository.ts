// Postgres access of the journey feature: the monthly usage counter (which links an account owns is links/read.ts).
import { and, eq, sql } from "drizzle-orm";
import { monthlyUsage } from "../storage/postgres/schema";
import type { DbOrTx } from "../storage/postgres/client";

export async function readJourneyUsage(db: DbOrTx, accountId: string, month: string): Promise<number> {
  const rows = await db
    .select({ n: monthlyUsage.journeyEvents })
    .from(monthlyUsage)
    .where(and(eq(monthlyUsage.accountId, accountId), eq(monthlyUsage.month, month)));
  return rows[0]?.n ?? 0;
}

/** Adds increments to the stored counters, one statement for all accounts. */
export async function addJourneyUsage(db: DbOrTx, rows: { accountId: string; month: string; journeyEvents: number }[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insert(monthlyUsage)
    .values(rows)
    .onConflictDoUpdate({
      target: [monthlyUsage.accountId, monthlyUsage.month],
      set: { journeyEvents: sql`${monthlyUsage.journeyEvents} + excluded.journey_events` },
    });
}
