// Campaigns group links (Growth tier or higher). No Elysia here.
import type { CampaignJson } from "./model";
import { and, desc, eq } from "drizzle-orm";
import { AppError, notFound } from "../errors";
import { tierAtLeast, type Tier } from "../tiers";
import { campaigns } from "../storage/postgres/schema";
import type { Postgres } from "../storage/postgres/client";
import type { AccountRecord } from "../http/auth";

type Row = typeof campaigns.$inferSelect;
const toJson = (c: Row): CampaignJson => ({
  id: c.id,
  name: c.name,
  description: c.description ?? "",
  created_at: c.createdAt.toISOString(),
});
const mine = (accountId: string, id: string) => and(eq(campaigns.id, id), eq(campaigns.accountId, accountId));

export async function listCampaigns(pg: Postgres, accountId: string) {
  return (await pg.db.select().from(campaigns).where(eq(campaigns.accountId, accountId)).orderBy(desc(campaigns.createdAt))).map(toJson);
}

export async function createCampaign(pg: Postgres, account: AccountRecord, body: { name: string; description?: string }) {
  if (!tierAtLeast(account.tier as Tier, "growth")) {
    throw new AppError("TIER_UPGRADE_REQUIRED", "Campaigns need the Growth tier or higher", { required_tier: "growth" });
  }
  const [row] = await pg.db
    .insert(campaigns)
    .values({ accountId: account.id, name: body.name, description: body.description ?? null })
    .returning();
  return toJson(row);
}

export async function getCampaign(pg: Postgres, accountId: string, id: string) {
  const [row] = await pg.db.select().from(campaigns).where(mine(accountId, id));
  if (!row) throw notFound("Campaign");
  return toJson(row);
}

export async function updateCampaign(pg: Postgres, accountId: string, id: string, body: { name?: string; description?: string | null }) {
  const patch: Partial<Row> = {};
  if (body.name !== undefined) patch.name = body.name;
  if (body.description !== undefined) patch.description = body.description;
  const [row] = Object.keys(patch).length
    ? await pg.db.update(campaigns).set(patch).where(mine(accountId, id)).returning()
    : await pg.db.select().from(campaigns).where(mine(accountId, id));
  if (!row) throw notFound("Campaign");
  return toJson(row);
}

export async function deleteCampaign(pg: Postgres, accountId: string, id: string) {
  const [row] = await pg.db.delete(campaigns).where(mine(accountId, id)).returning();
  if (!row) throw notFound("Campaign");
  return { message: `Campaign ${row.name} deleted; its links keep working without a campaign` };
}
