// Wire schemas of the admin API (accounts, keys, members).
import { t } from "elysia";
import { TIERS } from "../tiers";
import { SCOPES } from "../scopes";

export const TierSchema = t.Union(TIERS.map((x) => t.Literal(x)));
const LimitValue = t.Union([t.Integer({ minimum: 0 }), t.Null()]);
export const LimitOverridesSchema = t.Object(
  { journey_events_per_month: t.Optional(LimitValue), clicks_per_month: t.Optional(LimitValue) },
  { additionalProperties: false },
);

export const CreateAccountBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 200 }),
    tier: TierSchema,
    limit_overrides: t.Optional(LimitOverridesSchema),
  },
  { additionalProperties: false },
);

export const UpdateAccountBody = t.Object(
  {
    tier: t.Optional(TierSchema),
    limit_overrides: t.Optional(LimitOverridesSchema),
  },
  { additionalProperties: false },
);

export const CreateKeyBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 200 }),
    scopes: t.Array(t.Union(SCOPES.map((s) => t.Literal(s))), { minItems: 1, uniqueItems: true }),
    allowed_ips: t.Optional(t.Array(t.String({ minLength: 2, maxLength: 64 }), { maxItems: 100 })),
  },
  { additionalProperties: false },
);

export const AddMemberBody = t.Object(
  {
    email: t.String({ format: "email", maxLength: 320 }),
    role: t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member"), t.Literal("viewer")]),
  },
  { additionalProperties: false },
);

export const IdParams = t.Object({ id: t.String({ format: "uuid" }) });
export const KeyParams = t.Object({ id: t.String({ format: "uuid" }), key_id: t.String({ format: "uuid" }) });
export const MemberParams = t.Object({ id: t.String({ format: "uuid" }), member_id: t.String({ format: "uuid" }) });
