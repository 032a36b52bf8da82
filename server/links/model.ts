// Wire schemas and types of the Links API (API_SPEC.md "Links").
import { t, type Static } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import { ISO_DATE_OR_TIME_PATTERN } from "../iso-time";

const Str = (max: number) => t.String({ maxLength: max });
const IsoTime = t.String({ pattern: ISO_DATE_OR_TIME_PATTERN, maxLength: 40, description: "ISO 8601; a time without an offset is UTC" });
const Utm = {
  utm_source: t.Optional(Str(255)),
  utm_medium: t.Optional(Str(255)),
  utm_campaign: t.Optional(Str(255)),
  utm_term: t.Optional(Str(255)),
  utm_content: t.Optional(Str(255)),
};
const Tags = t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 });

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
    // Present only to answer "the destination cannot be changed" clearly.
    url: t.Optional(t.Unknown()),
    original_url: t.Optional(t.Unknown()),
  },
  { additionalProperties: false },
);
export type UpdateLinkInput = Static<typeof UpdateLinkBody>;

export const SORT_FIELDS = ["created_at", "updated_at", "title", "short_code", "original_url", "last_accessed_at", "expires_at"] as const;
export type SortField = (typeof SORT_FIELDS)[number];

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
  sort_by: t.Optional(t.Union(SORT_FIELDS.map((f) => t.Literal(f)))),
  sort_order: t.Optional(t.Union([t.Literal("asc"), t.Literal("desc")])),
});
export type ListLinksInput = Static<typeof ListLinksQuery>;
export const DeletedLinksQuery = t.Object({
  page: t.Optional(t.Numeric({ description: "1 to 1,000,000 (default 1)" })),
  per_page: t.Optional(t.Numeric({ description: "1 to 250 (default 20)" })),
});

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
    is_password_protected: t.Boolean(),
    expires_at: Nullable(Time),
    utm_source: Nullable(t.String()),
    utm_medium: Nullable(t.String()),
    utm_campaign: Nullable(t.String()),
    utm_term: Nullable(t.String()),
    utm_content: Nullable(t.String()),
    domain_id: Nullable(Uuid),
    campaign_id: Nullable(Uuid),
    track_conversions: t.Boolean(),
    created_at: Time,
    updated_at: Time,
    last_accessed_at: Nullable(Time),
  },
  { $id: "Link", additionalProperties: false },
);
export type LinkJson = Static<typeof Link>;

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

export const ALIAS_PATTERN = /^[A-Za-z0-9_-]{3,64}$/;
/** Short codes that would shadow our own paths. */
export const RESERVED_CODES = new Set([
  "public-api",
  "admin",
  "cdn",
  "healthz",
  "metrics",
  "dashboard",
  "console",
  "widgets",
  "widgets.js",
  "t.js",
  "t",
  "tracker",
  "api",
  "docs",
  "static",
  "assets",
  "favicon.ico",
  "robots.txt",
  "login",
  "logout",
  "app",
  "www",
  "_svc",
]);
