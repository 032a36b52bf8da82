// The shares table: every query of the shares feature.
import { and, desc, eq, gt, or, sql } from "drizzle-orm";
import { shares } from "../storage/postgres/schema";
import type { DbOrTx } from "../storage/postgres/client";

export type ShareRow = typeof shares.$inferSelect;
export type NewShare = typeof shares.$inferInsert;
const mine = (accountId: string, id: string) => and(eq(shares.id, id), eq(shares.accountId, accountId));

export const listAccountShares = (db: DbOrTx, accountId: string): Promise<ShareRow[]> =>
  db.select().from(shares).where(eq(shares.accountId, accountId)).orderBy(desc(shares.createdAt), desc(shares.id));

export const insertShare = async (db: DbOrTx, row: NewShare): Promise<ShareRow> => (await db.insert(shares).values(row).returning())[0];

export const findShare = async (db: DbOrTx, accountId: string, id: string): Promise<ShareRow | undefined> =>
  (await db.select().from(shares).where(mine(accountId, id)))[0];

export const updateShareRow = async (db: DbOrTx, accountId: string, id: string, patch: Partial<NewShare>): Promise<ShareRow | undefined> =>
  (
    await db
      .update(shares)
      .set({ ...patch, updatedAt: sql`now()` })
      .where(mine(accountId, id))
      .returning()
  )[0];

/** The current token becomes the previous one (valid until `graceUntil`), `tokenHash` the current one. */
export const rotateShareToken = async (
  db: DbOrTx,
  accountId: string,
  id: string,
  next: { tokenHash: string; tokenPrefix: string },
  graceUntil: Date,
): Promise<ShareRow | undefined> =>
  (
    await db
      .update(shares)
      .set({
        previousTokenHash: sql`${shares.tokenHash}`,
        previousValidUntil: graceUntil,
        tokenHash: next.tokenHash,
        tokenPrefix: next.tokenPrefix,
        updatedAt: sql`now()`,
      })
      .where(mine(accountId, id))
      .returning()
  )[0];

export const deleteShareRow = async (db: DbOrTx, accountId: string, id: string): Promise<ShareRow | undefined> =>
  (await db.delete(shares).where(mine(accountId, id)).returning())[0];

/** The share a token names: its current token, or its previous one while the grace lasts (the database's clock). */
export const findShareByTokenHash = async (db: DbOrTx, hash: string): Promise<ShareRow | undefined> =>
  (
    await db
      .select()
      .from(shares)
      .where(or(eq(shares.tokenHash, hash), and(eq(shares.previousTokenHash, hash), gt(shares.previousValidUntil, sql`now()`))))
      .limit(1)
  )[0];
