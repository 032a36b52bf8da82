// The report_subscriptions and alerts tables: every query of the alerts feature. The two claims are
// single UPDATEs, so that of several instances checking at once exactly one sends.
import { and, asc, eq, isNull, lte, or, sql } from "drizzle-orm";
import { alerts, reportSubscriptions } from "../storage/postgres/schema";
import type { DbOrTx } from "../storage/postgres/client";
import type { AlertRow, SubscriptionRow } from "./model";

type NewSubscription = typeof reportSubscriptions.$inferInsert;
type NewAlert = typeof alerts.$inferInsert;
const mySub = (accountId: string, id: string) => and(eq(reportSubscriptions.id, id), eq(reportSubscriptions.accountId, accountId));
const myAlert = (accountId: string, id: string) => and(eq(alerts.id, id), eq(alerts.accountId, accountId));

export const listSubscriptions = (db: DbOrTx, accountId: string): Promise<SubscriptionRow[]> =>
  db.select().from(reportSubscriptions).where(eq(reportSubscriptions.accountId, accountId)).orderBy(asc(reportSubscriptions.createdAt));

export const countSubscriptions = async (db: DbOrTx, accountId: string) =>
  (await db.select({ n: sql<number>`count(*)::int` }).from(reportSubscriptions).where(eq(reportSubscriptions.accountId, accountId)))[0].n;

/** Null when the address is already subscribed to the account's reports. */
export const insertSubscription = async (db: DbOrTx, row: NewSubscription): Promise<SubscriptionRow | undefined> =>
  (await db.insert(reportSubscriptions).values(row).onConflictDoNothing().returning())[0];

export const findSubscription = async (db: DbOrTx, accountId: string, id: string) =>
  (await db.select().from(reportSubscriptions).where(mySub(accountId, id)))[0];

/** An empty patch changes nothing and answers the row as it is (an UPDATE needs a column to set). */
export const updateSubscriptionRow = async (db: DbOrTx, accountId: string, id: string, patch: Partial<NewSubscription>) =>
  Object.values(patch).every((v) => v === undefined)
    ? findSubscription(db, accountId, id)
    : (await db.update(reportSubscriptions).set(patch).where(mySub(accountId, id)).returning())[0];

export const deleteSubscriptionRow = async (db: DbOrTx, accountId: string, id: string) =>
  (await db.delete(reportSubscriptions).where(mySub(accountId, id)).returning())[0];

export const findSubscriptionByToken = async (db: DbOrTx, tokenHash: string) =>
  (await db.select().from(reportSubscriptions).where(eq(reportSubscriptions.unsubscribeTokenHash, tokenHash)))[0];

export const deleteSubscriptionByToken = async (db: DbOrTx, tokenHash: string) =>
  (await db.delete(reportSubscriptions).where(eq(reportSubscriptions.unsubscribeTokenHash, tokenHash)).returning())[0];

export type Frequency = "weekly" | "monthly";
const sentFor = (f: Frequency) => (f === "weekly" ? reportSubscriptions.weeklySentFor : reportSubscriptions.monthlySentFor);

/** Subscriptions of every account whose `frequency` report of `period` is not sent yet. */
export const dueSubscriptions = (db: DbOrTx, frequency: Frequency, period: string): Promise<SubscriptionRow[]> =>
  db
    .select()
    .from(reportSubscriptions)
    .where(and(eq(reportSubscriptions[frequency], true), sql`${sentFor(frequency)} IS DISTINCT FROM ${period}`))
    .orderBy(asc(reportSubscriptions.accountId));

/** Marks the period sent; the row when this call did it (and so sends), undefined when another one had. */
export const claimReport = async (db: DbOrTx, id: string, frequency: Frequency, period: string) =>
  (
    await db
      .update(reportSubscriptions)
      .set(frequency === "weekly" ? { weeklySentFor: period } : { monthlySentFor: period })
      .where(
        and(
          eq(reportSubscriptions.id, id),
          eq(reportSubscriptions[frequency], true),
          sql`${sentFor(frequency)} IS DISTINCT FROM ${period}`,
        ),
      )
      .returning()
  )[0];

export const listAlerts = (db: DbOrTx, accountId: string): Promise<AlertRow[]> =>
  db.select().from(alerts).where(eq(alerts.accountId, accountId)).orderBy(asc(alerts.createdAt));

export const countAlerts = async (db: DbOrTx, accountId: string) =>
  (await db.select({ n: sql<number>`count(*)::int` }).from(alerts).where(eq(alerts.accountId, accountId)))[0].n;

export const insertAlert = async (db: DbOrTx, row: NewAlert): Promise<AlertRow> => (await db.insert(alerts).values(row).returning())[0];

export const findAlert = async (db: DbOrTx, accountId: string, id: string) =>
  (await db.select().from(alerts).where(myAlert(accountId, id)))[0];

export const updateAlertRow = async (db: DbOrTx, accountId: string, id: string, patch: Partial<NewAlert>) =>
  (
    await db
      .update(alerts)
      .set({ ...patch, updatedAt: sql`now()` })
      .where(myAlert(accountId, id))
      .returning()
  )[0];

export const deleteAlertRow = async (db: DbOrTx, accountId: string, id: string) =>
  (await db.delete(alerts).where(myAlert(accountId, id)).returning())[0];

/** Enabled alerts that may trigger now: never triggered, or not in the last 12 hours (the database's clock). */
export const armedAlerts = (db: DbOrTx): Promise<AlertRow[]> =>
  db
    .select()
    .from(alerts)
    .where(and(eq(alerts.enabled, true), or(isNull(alerts.lastTriggeredAt), lte(alerts.lastTriggeredAt, sql`now() - interval '12 hours'`))))
    .orderBy(asc(alerts.accountId));

/** Claims a trigger; the row when this call did (and so delivers), undefined when it triggered in the last 12 hours. */
export const claimAlert = async (db: DbOrTx, id: string, value: number) =>
  (
    await db
      .update(alerts)
      .set({ lastTriggeredAt: sql`now()`, lastValue: value })
      .where(
        and(
          eq(alerts.id, id),
          eq(alerts.enabled, true),
          or(isNull(alerts.lastTriggeredAt), lte(alerts.lastTriggeredAt, sql`now() - interval '12 hours'`)),
        ),
      )
      .returning()
  )[0];
