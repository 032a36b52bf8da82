// Campaigns (DESIGN.md): GET/POST /campaigns, GET/PATCH/DELETE /campaigns/{id}; links:read / links:write.
import { Elysia, t } from "elysia";
import { API_PREFIX, type FeatureDeps } from "../app";
import { Envelope } from "../http/envelope";
import * as campaigns from "./service";

const Body = t.Object(
  { name: t.String({ minLength: 1, maxLength: 200 }), description: t.Optional(t.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);
const Patch = t.Object(
  {
    name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    description: t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Null()])),
  },
  { additionalProperties: false },
);
const Params = t.Object({ id: t.String({ format: "uuid" }) });

export function campaignsRoutes(deps: FeatureDeps) {
  // A fresh object per route: Elysia merges macro details into it in place.
  const detail = () => ({ tags: ["Campaigns"] });
  return new Elysia({ prefix: API_PREFIX })
    .use(deps.auth)
    .get("/campaigns", ({ account }) => campaigns.listCampaigns(deps.pg, account.id), { scope: "links:read", detail: detail() })
    .post("/campaigns", async ({ account, body }) => new Envelope(await campaigns.createCampaign(deps.pg, account, body), 201), {
      scope: "links:write",
      body: Body,
      detail: detail(),
    })
    .get("/campaigns/:id", ({ account, params }) => campaigns.getCampaign(deps.pg, account.id, params.id), {
      scope: "links:read",
      params: Params,
      detail: detail(),
    })
    .patch("/campaigns/:id", ({ account, params, body }) => campaigns.updateCampaign(deps.pg, account.id, params.id, body), {
      scope: "links:write",
      params: Params,
      body: Patch,
      detail: detail(),
    })
    .delete("/campaigns/:id", ({ account, params }) => campaigns.deleteCampaign(deps.pg, account.id, params.id), {
      scope: "links:write",
      params: Params,
      detail: detail(),
    });
}
