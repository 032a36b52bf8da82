// Campaigns (DESIGN.md): GET/POST /campaigns, GET/PATCH/DELETE /campaigns/{id}; links:read / links:write.
import { Elysia, t } from "elysia";
import { API_PREFIX, type FeatureDeps } from "../app";
import { Envelope } from "../http/envelope";
import { MessageResult } from "../openapi/envelope";
import { operation } from "../openapi/operation";
import { Campaign, CampaignIdParams, CreateCampaignBody, UpdateCampaignBody } from "./model";
import * as campaigns from "./service";

export function campaignsRoutes(deps: FeatureDeps) {
  return new Elysia({ prefix: API_PREFIX })
    .use(deps.auth)
    .get("/campaigns", ({ account }) => campaigns.listCampaigns(deps.pg, account.id), {
      scope: "links:read",
      detail: operation({
        id: "listCampaigns",
        tag: "Campaigns",
        summary: "List campaigns",
        responses: { 200: { description: "The account's campaigns, newest first", data: t.Array(Campaign) } },
      }),
    })
    .post("/campaigns", async ({ account, body }) => new Envelope(await campaigns.createCampaign(deps.pg, account, body), 201), {
      scope: "links:write",
      body: CreateCampaignBody,
      detail: operation({
        id: "createCampaign",
        tag: "Campaigns",
        summary: "Create a campaign",
        description: "Growth tier or higher.",
        responses: { 201: { description: "The campaign", data: Campaign } },
        errors: ["TIER_UPGRADE_REQUIRED"],
      }),
    })
    .get("/campaigns/:id", ({ account, params }) => campaigns.getCampaign(deps.pg, account.id, params.id), {
      scope: "links:read",
      params: CampaignIdParams,
      detail: operation({
        id: "getCampaign",
        tag: "Campaigns",
        summary: "Get a campaign",
        responses: { 200: { description: "The campaign", data: Campaign } },
        errors: ["NOT_FOUND"],
      }),
    })
    .patch("/campaigns/:id", ({ account, params, body }) => campaigns.updateCampaign(deps.pg, account.id, params.id, body), {
      scope: "links:write",
      params: CampaignIdParams,
      body: UpdateCampaignBody,
      detail: operation({
        id: "updateCampaign",
        tag: "Campaigns",
        summary: "Update a campaign",
        description: "`description: null` clears it.",
        responses: { 200: { description: "The updated campaign", data: Campaign } },
        errors: ["NOT_FOUND"],
      }),
    })
    .delete("/campaigns/:id", ({ account, params }) => campaigns.deleteCampaign(deps.pg, account.id, params.id), {
      scope: "links:write",
      params: CampaignIdParams,
      detail: operation({
        id: "deleteCampaign",
        tag: "Campaigns",
        summary: "Delete a campaign",
        description: "Its links stay, without a campaign.",
        responses: { 200: { description: "Deleted", data: MessageResult } },
        errors: ["NOT_FOUND"],
      }),
    });
}
