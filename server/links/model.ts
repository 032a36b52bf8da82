// Wire schemas and types of the Links API (docs/api.md "Links").
import { t, type Static } from "elysia";
import { LINK_STATUSES } from "./status";
import type { TSchema } from "@sinclair/typebox";
import { ISO_DATE_OR_TIME_PATTERN } from "../iso-time";

const Str = (max: number) => t.String({ maxLength: max });
const IsoTime = t.String({ pattern: ISO_DATE_OR_TIME_PATTERN, maxLength: 40, description: "ISO 8601; a time without an offset is UTC" });
/** The UTM fields of a link: the API's name and the row's. */
export const UTM_FIELDS = [
  ["utm_source", "utmSource"],
  ["utm_medium", "utmMedium"],
  ["utm_campaign", "utmCampaign"],
  ["utm_term", "utmTerm"],
  ["utm_content", "utmContent"],
] as const;
export type UtmField = (typeof UTM_FIELDS)[number][0];
export type UtmColumn = (typeof UTM_FIELDS)[number][1];
/** One schema per UTM field, under the API's names. */
const utmSchemas = <S extends TSchema>(schema: () => S) =>
  Object.fromEntries(UTM_FIELDS.map(([f]) => [f, schema()])) as Record<UtmField, S>;
/** The five UTM values as the API names them, from a row's columns (or the reverse, with `utmColumns`). */
export const utmJson = (row: Record<UtmColumn, string | null>) =>
  Object.fromEntries(UTM_FIELDS.map(([f, c]) => [f, row[c]])) as Record<UtmField, string | null>;
export const utmColumns = (value: (field: UtmField) => string | null) =>
  Object.fromEntries(UTM_FIELDS.map(([f, c]) => [c, value(f)])) as Record<UtmColumn, string | null>;
const Utm = utmSchemas(() => t.Optional(Str(255)));
const Tags = t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 });

export const DEVICE_TYPES = ["mobile", "tablet", "desktop"] as const;
export const OS_FAMILIES = ["ios", "android", "windows", "macos", "linux", "chromeos"] as const;
export const MAX_RULES = 50;
export const MAX_VARIANTS = 10;
const Destination = (description: string) => t.String({ minLength: 1, maxLength: 4096, description });
const NullableUrl = (description: string) => t.Union([Destination(description), t.Null()], { description });

/**
 * A rule as sent and as answered: the same but for device and os, which a request may write in any case
 * ("iOS") and the API stores and answers lower case (normalizeRules checks the value and names the
 * allowed ones).
 */
const ruleSchema = <C extends TSchema>(choice: (values: readonly string[]) => C) =>
  t.Object(
    {
      if: t.Object(
        {
          country: t.Optional(
            t.Array(t.String({ minLength: 1, maxLength: 8 }), {
              minItems: 1,
              maxItems: 250,
              description: "ISO 3166-1 alpha-2 codes in any case (stored upper case); holds when the visitor's country is one of them",
            }),
          ),
          device: t.Optional(
            t.Array(choice(DEVICE_TYPES), {
              minItems: 1,
              description: "mobile, tablet or desktop (as the click analytics classify them), in any case",
            }),
          ),
          os: t.Optional(
            t.Array(choice(OS_FAMILIES), {
              minItems: 1,
              description: "ios, android, windows, macos, linux or chromeos, in any case",
            }),
          ),
          language: t.Optional(
            t.Array(t.String({ minLength: 1, maxLength: 16 }), {
              minItems: 1,
              maxItems: 100,
              description:
                "BCP 47 primary language subtags (en, de, pt…) in any case (stored lower case); holds when the visitor's preferred Accept-Language entry has one of them",
            }),
          ),
          query: t.Optional(
            t.Object(
              {
                name: t.String({ minLength: 1, maxLength: 128, description: "query parameter of the short URL" }),
                value: t.String({ maxLength: 512, description: "its exact value" }),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false, description: "Conditions, at least one; all of them must hold" },
      ),
      url: Destination("Destination when the rule matches (http or https, as the link's url)"),
    },
    { additionalProperties: false },
  );
export const RuleSchema = ruleSchema((values) => t.Union(values.map((v) => t.Literal(v))));
const RuleInputSchema = ruleSchema(() => t.String({ minLength: 1, maxLength: 16 }));

export const VariantSchema = t.Object(
  {
    url: Destination("Destination of this variant (http or https, as the link's url)"),
    weight: t.Integer({ minimum: 0, maximum: 100, description: "Share of new visitors in percent; the weights sum to 100" }),
  },
  { additionalProperties: false },
);
const rulesOf = <S extends TSchema>(rule: S) =>
  t.Array(rule, {
    maxItems: MAX_RULES,
    description: "Targeting rules in order: the first whose conditions all hold chooses the destination; [] removes them",
  });
const Rules = rulesOf(RuleSchema);
const RulesInput = rulesOf(RuleInputSchema);
const Variants = t.Array(VariantSchema, {
  maxItems: MAX_VARIANTS,
  description: "A/B destinations (2 to 10, weights summing to 100), sticky per visitor through a cookie; [] removes them",
});
const MaxClicks = t.Union([t.Integer({ minimum: 1, maximum: 2_147_483_647 }), t.Null()], {
  description: "Human clicks the link serves before max_clicks_url (or a 410 page) takes over; null: no limit",
});
const Targeting = {
  // Arrays only ([] clears), so that validation errors name the field inside a rule or variant.
  rules: t.Optional(RulesInput),
  variants: t.Optional(Variants),
  max_clicks: t.Optional(MaxClicks),
  max_clicks_url: t.Optional(NullableUrl("Where visitors go once max_clicks is reached (instead of a 410 page)")),
  expired_url: t.Optional(NullableUrl("Where visitors go after expires_at (instead of a 410 page)")),
};

export const CreateLinkBody = t.Object(
  {
    url: t.String({ minLength: 1, maxLength: 4096 }),
    title: t.Optional(Str(500)),
    description: t.Optional(Str(2000)),
    og_image: t.Optional(Str(2048)),
    custom_alias: t.Optional(t.String()),
    tags: t.Optional(Tags),
    expires_at: t.Optional(IsoTime),
    is_password_protected: t.Optional(t.Boolean()),
    password: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    ...Utm,
    domain_id: t.Optional(t.String({ format: "uuid" })),
    campaign_id: t.Optional(t.String({ format: "uuid" })),
    track_conversions: t.Optional(t.Boolean()),
    ...Targeting,
  },
  { additionalProperties: false },
);
export type CreateLinkInput = Static<typeof CreateLinkBody>;

export const UpdateLinkBody = t.Object(
  {
    custom_alias: t.Optional(t.String()),
    title: t.Optional(Str(500)),
    description: t.Optional(Str(2000)),
    og_image: t.Optional(Str(2048)),
    tags: t.Optional(Tags),
    expires_at: t.Optional(t.Union([IsoTime, t.Null()])),
    is_active: t.Optional(t.Boolean()),
    is_password_protected: t.Optional(t.Boolean()),
    password: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    campaign_id: t.Optional(t.Union([t.String({ format: "uuid" }), t.Null()])),
    domain_id: t.Optional(t.Union([t.String({ format: "uuid" }), t.Null()])),
    ...Utm,
    track_conversions: t.Optional(t.Boolean()),
    ...Targeting,
    url: t.Optional(
      t.Unknown({
        description: "A new destination (http or https): the code and the clicks stay; the old one is kept in GET /links/{id}/destinations",
      }),
    ),
    original_url: t.Optional(t.Unknown({ description: "The same as url" })),
  },
  { additionalProperties: false },
);
export type UpdateLinkInput = Static<typeof UpdateLinkBody>;

export const SORT_FIELDS = ["created_at", "updated_at", "title", "short_code", "original_url", "last_accessed_at", "expires_at"] as const;
export type SortField = (typeof SORT_FIELDS)[number];
/** Sorts by people's clicks of the last 7 days (UTC, today included), from the click analytics. */
export const CLICKS_SORT = "clicks_7d";

/** Checked by checkQueryBounds (server/http/query-bounds.ts), which names the field. */
export const LIST_LINKS_BOUNDS = { page: [1, 1_000_000], per_page: [1, 250] } as const;
export const ListLinksQuery = t.Object({
  page: t.Optional(t.Numeric({ description: "1 to 1,000,000 (default 1)" })),
  per_page: t.Optional(t.Numeric({ description: "1 to 250 (default 20)" })),
  search: t.Optional(t.String({ maxLength: 200 })),
  tags: t.Optional(t.Union([t.String({ maxLength: 1000 }), t.Array(t.String({ maxLength: 64 }))])),
  is_active: t.Optional(t.BooleanString()),
  has_password: t.Optional(t.BooleanString()),
  domain: t.Optional(t.String({ maxLength: 253 })),
  domain_id: t.Optional(t.String({ format: "uuid" })),
  created_after: t.Optional(IsoTime),
  created_before: t.Optional(IsoTime),
  last_active_after: t.Optional(IsoTime),
  sort_by: t.Optional(
    t.Union(
      [...SORT_FIELDS, CLICKS_SORT].map((f) => t.Literal(f)),
      {
        description: "`clicks_7d`: people's clicks of the last 7 days (UTC), ties by creation, newest first",
      },
    ),
  ),
  sort_order: t.Optional(t.Union([t.Literal("asc"), t.Literal("desc")])),
});
export type ListLinksInput = Static<typeof ListLinksQuery>;
export const DeletedLinksQuery = t.Object({
  page: t.Optional(t.Numeric({ description: "1 to 1,000,000 (default 1)" })),
  per_page: t.Optional(t.Numeric({ description: "1 to 250 (default 20)" })),
});

/** Checked by checkQueryBounds (server/http/query-bounds.ts), which names the field. */
export const QR_BOUNDS = { size: [64, 2048], margin: [1, 16] } as const;
const HexColour = (description: string) => t.String({ maxLength: 7, description });
export const QrQuery = t.Object({
  format: t.Optional(t.Union([t.Literal("svg"), t.Literal("png")], { description: "svg (default) or png" })),
  size: t.Optional(t.Numeric({ description: "Width and height in pixels, 64 to 2048 (default 512)" })),
  margin: t.Optional(t.Numeric({ description: "Quiet zone in modules, 1 to 16 (default 4)" })),
  level: t.Optional(
    t.Union(
      ["L", "M", "Q", "H"].map((l) => t.Literal(l as "L" | "M" | "Q" | "H")),
      { description: "Error correction: L, M (default), Q or H (default with a logo; a logo needs Q or H)" },
    ),
  ),
  fg: t.Optional(HexColour("Foreground hex colour, #rgb or #rrggbb (default #000000); darker than bg, contrast at least 3:1")),
  bg: t.Optional(HexColour("Background hex colour (default #ffffff)")),
  logo: t.Optional(t.BooleanString({ description: "true: draw the link's uploaded QR logo in the middle" })),
});
export type QrQueryInput = Static<typeof QrQuery>;

export const BulkCreateBody = t.Array(t.Unknown(), { minItems: 1 });
export const LinkIdParams = t.Object({ id: t.String({ format: "uuid" }) });

// Responses. toLinkJson (serialize.ts) returns exactly a Link; the tests check every answer against these.
const Nullable = <T extends TSchema>(s: T) => t.Union([s, t.Null()]);
const Time = t.String({ format: "date-time" });
const Uuid = t.String({ format: "uuid" });
export const Link = t.Object(
  {
    id: Uuid,
    short_code: t.String(),
    short_url: t.String({ description: "BASE_URL/short_code, or https://<custom domain>/short_code" }),
    original_url: t.String(),
    title: t.String({ description: "Read from the destination's HTML when omitted at creation (may stay empty)" }),
    description: t.String(),
    og_image: Nullable(t.String()),
    tags: t.Array(t.String()),
    is_active: t.Boolean(),
    status: t.Union(
      LINK_STATUSES.map((st) => t.Literal(st)),
      {
        description:
          "What the redirect does now: `active` redirects; `inactive` (is_active false) answers 404; `expired` (past expires_at) and " +
          "`limit_reached` (counted_clicks reached max_clicks) answer 410 or send visitors to expired_url / max_clicks_url",
      },
    ),
    is_password_protected: t.Boolean(),
    expires_at: Nullable(Time),
    ...utmSchemas(() => Nullable(t.String())),
    domain_id: Nullable(Uuid),
    campaign_id: Nullable(Uuid),
    track_conversions: t.Boolean(),
    rules: Rules,
    variants: Variants,
    max_clicks: MaxClicks,
    max_clicks_url: Nullable(t.String({ description: "Where visitors go once max_clicks is reached; null: a 410 page" })),
    expired_url: Nullable(t.String({ description: "Where visitors go after expires_at; null: a 410 page" })),
    counted_clicks: Nullable(t.Integer({ minimum: 0, description: "Human clicks counted against max_clicks; null without a limit" })),
    qr_logo: Nullable(t.String({ description: "The uploaded logo used by GET /links/{id}/qr?logo=true" })),
    imported_clicks: t.Integer({
      minimum: 0,
      description:
        "Clicks another product counted before the link was imported (POST /imports from Bitly, Dub, Shlink or Kutt): a total kept beside our own clicks, never added to them",
    }),
    created_at: Time,
    updated_at: Time,
    last_accessed_at: Nullable(Time),
  },
  { $id: "Link", additionalProperties: false },
);
export type LinkJson = Static<typeof Link>;

export const LinkDestination = t.Object(
  {
    url: t.String(),
    from: Time,
    until: Nullable(Time),
  },
  { $id: "LinkDestination", additionalProperties: false, description: "`until` is null for the current destination" },
);

/** An item of the trash: a deleted link that can still be restored. */
export const DeletedLink = t.Composite([Link, t.Object({ deleted_at: Time, restorable_until: Time })], {
  $id: "DeletedLink",
  additionalProperties: false,
});

const Count = t.Integer({ minimum: 0 });
export const BulkCreateResult = t.Object(
  {
    created: t.Array(
      t.Object(
        {
          index: t.Integer({ minimum: 0, description: "Position in the request array" }),
          link: t.Object(
            { id: Uuid, short_code: t.String(), short_url: t.String(), original_url: t.String() },
            { additionalProperties: false },
          ),
        },
        { additionalProperties: false },
      ),
    ),
    failed: t.Array(
      t.Object(
        {
          index: t.Integer({ minimum: 0 }),
          url: t.String(),
          error: t.String(),
          error_type: t.String({ description: "validation, tier, conflict, not_found, internal or error" }),
        },
        { additionalProperties: false },
      ),
    ),
    total_requested: Count,
    success_count: Count,
    failure_count: Count,
  },
  { $id: "BulkCreateResult", additionalProperties: false },
);
export const OgImageResult = t.Object(
  { og_image: Nullable(t.String({ description: "CDN_URL/og/<file>.webp" })), message: t.String() },
  { $id: "OgImageResult", additionalProperties: false },
);

export const QrLogoResult = t.Object(
  { qr_logo: Nullable(t.String({ description: "CDN_URL/qr-logo/<file>.png" })), message: t.String() },
  { $id: "QrLogoResult", additionalProperties: false },
);
