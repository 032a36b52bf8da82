// The campaigns table: every query of the campaigns feature.
import { and, desc, eq } from "drizzle-orm";
import { campaigns } from "../storage/postgres/schema";
import type { DbOrTx } from "../storage/postgres/client";

export type CampaignRow = typeof campaigns.$inferSelect;
const mine = (accountId: string, id: string) => and(eq(campaigns.id, id), eq(campaigns.accountId, accountId));

export const listAccountCampaigns = (db: DbOrTx, accountId: string): Promise<CampaignRow[]> =>
  db.select().from(campaigns).where(eq(campaigns.accountId, accountId)).orderBy(desc(campaigns.createdAt));

export const insertCampaign = async (db: DbOrTx, accountId: string, name: string, description: string | null): Promise<CampaignRow> =>
  (await db.insert(campaigns).values({ accountId, name, description }).returning())[0];

export const findCampaign = async (db: DbOrTx, accountId: string, id: string): Promise<CampaignRow | undefined> =>
  (await db.select().from(campaigns).where(mine(accountId, id)))[0];

export const updateCampaignRow = async (
  db: DbOrTx,
  accountId: string,
  id: string,
  patch: Partial<Pick<CampaignRow, "name" | "description">>,
): Promise<CampaignRow | undefined> => (await db.update(campaigns).set(patch).where(mine(accountId, id)).returning())[0];

export const deleteCampaignRow = async (db: DbOrTx, accountId: string, id: string): Promise<CampaignRow | undefined> =>
  (await db.delete(campaigns).where(mine(accountId, id)).returning())[0];

/** Whether the campaign is one of the account's (a link may only join its own account's campaigns). */
export const isAccountCampaign = async (db: DbOrTx, accountId: string, id: string): Promise<boolean> =>
  (await db.select({ id: campaigns.id }).from(campaigns).where(mine(accountId, id))).length > 0;
