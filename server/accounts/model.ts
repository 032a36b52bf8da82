// Wire schemas of the admin API (accounts, keys, members).
import { t, type Static } from "elysia";
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

// Responses; the service's to*Json functions return exactly these, and the tests check every answer.
const Time = t.String({ format: "date-time" });
const strict = { additionalProperties: false } as const;
export const Account = t.Object(
  {
    id: t.String({ format: "uuid" }),
    name: t.String(),
    tier: TierSchema,
    limit_overrides: LimitOverridesSchema,
    created_at: Time,
  },
  { $id: "Account", ...strict },
);
const keyFields = {
  id: t.String({ format: "uuid" }),
  name: t.String(),
  prefix: t.String({ description: "The key's first characters, to recognise it" }),
  scopes: t.Array(t.String()),
  allowed_ips: t.Array(t.String()),
  created_at: Time,
  last_used_at: t.Union([Time, t.Null()]),
  revoked_at: t.Union([Time, t.Null()]),
};
export const ApiKeyRecord = t.Object(keyFields, { $id: "ApiKeyRecord", ...strict });
export const CreatedApiKey = t.Object(
  { ...keyFields, key: t.String({ description: "The full key (svc_…), shown only here" }) },
  { $id: "CreatedApiKey", ...strict },
);
export const Member = t.Object(
  {
    id: t.String({ format: "uuid" }),
    email: t.String(),
    role: t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member"), t.Literal("viewer")]),
    created_at: Time,
  },
  { $id: "Member", ...strict },
);
export type AccountJson = Static<typeof Account>;
export type ApiKeyJson = Static<typeof ApiKeyRecord>;
export type MemberJson = Static<typeof Member>;
