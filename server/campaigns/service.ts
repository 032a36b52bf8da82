// Campaigns group links (Growth tier or higher). No Elysia here.
import type { CampaignJson } from "./model";
import { notFound } from "../errors";
import { requireTier } from "../tiers";
import * as repo from "./repository";
import type { Postgres } from "../storage/postgres/client";
import type { AccountRecord } from "../accounts/principal";

type Row = repo.CampaignRow;
const toJson = (c: Row): CampaignJson => ({
  id: c.id,
  name: c.name,
  description: c.description ?? "",
  created_at: c.createdAt.toISOString(),
});

export async function listCampaigns(pg: Postgres, accountId: string) {
  return (await repo.listAccountCampaigns(pg.db, accountId)).map(toJson);
}

export async function createCampaign(pg: Postgres, account: AccountRecord, body: { name: string; description?: string }) {
  requireTier(account.tier, "growth", "Campaigns need");
  return toJson(await repo.insertCampaign(pg.db, account.id, body.name, body.description ?? null));
}

export async function getCampaign(pg: Postgres, accountId: string, id: string) {
  const row = await repo.findCampaign(pg.db, accountId, id);
  if (!row) throw notFound("Campaign");
  return toJson(row);
}

export async function updateCampaign(pg: Postgres, accountId: string, id: string, body: { name?: string; description?: string | null }) {
  const patch: Partial<Row> = {};
  if (body.name !== undefined) patch.name = body.name;
  if (body.description !== undefined) patch.description = body.description;
  const row = Object.keys(patch).length
    ? await repo.updateCampaignRow(pg.db, accountId, id, patch)
    : await repo.findCampaign(pg.db, accountId, id);
  if (!row) throw notFound("Campaign");
  return toJson(row);
}

export async function deleteCampaign(pg: Postgres, accountId: string, id: string) {
  const row = await repo.deleteCampaignRow(pg.db, accountId, id);
  if (!row) throw notFound("Campaign");
  return { message: `Campaign ${row.name} deleted; its links keep working without a campaign` };
}
