// Wire schemas of campaigns: groups of links, Growth tier or higher.
import { t, type Static } from "elysia";

export const CreateCampaignBody = t.Object(
  { name: t.String({ minLength: 1, maxLength: 200 }), description: t.Optional(t.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);
export const UpdateCampaignBody = t.Object(
  {
    name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    description: t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Null()])),
  },
  { additionalProperties: false },
);
export const CampaignIdParams = t.Object({ id: t.String({ format: "uuid" }) });

export const Campaign = t.Object(
  {
    id: t.String({ format: "uuid" }),
    name: t.String(),
    description: t.String({ description: "Empty when none" }),
    created_at: t.String({ format: "date-time" }),
  },
  { $id: "Campaign", additionalProperties: false },
);
export type CampaignJson = Static<typeof Campaign>;
