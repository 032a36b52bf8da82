// How a route describes itself in the OpenAPI document: every public and admin route passes
// `detail: operation({ id, tag, summary, responses, errors })`. The document (document.ts) reads it
// from Elysia's route table together with the params, query and body schemas the route validates
// with, and adds what every route of its kind can answer (401, 403, 429, 500, 400 for routes with input).
import type { TSchema } from "@sinclair/typebox";
import type { DocumentDecoration } from "elysia";
import type { ErrorCode } from "../errors";
import type { DocumentedHeader } from "./envelope";

/** The tags of the public document, in the order the reference page lists them. */
export const PUBLIC_TAGS = {
  Links: "Short links: create, list, update, delete and restore, bulk import, preview images and per-link click stats.",
  Analytics: "Click analytics of the account: totals, daily series, countries, devices, referrers and hours.",
  Journey: "Visitor journey events: ingest from sites and apps, and per-link sessions, events, summaries and funnels.",
  Conversions: "Conversions (journey events of type `conversion`): totals, time series, breakdowns and time to convert.",
  Webhooks: "Signed HTTP deliveries of account events to your endpoints, with delivery history and retries.",
  Domains: "Custom domains for short links, verified through a DNS TXT record.",
  Campaigns: "Campaigns that group links (Growth tier or higher).",
  Shares: "Read-only shared dashboards of the account, a campaign or a link, at an address with a token (docs/sharing.md).",
  Imports: "Links and their history brought in from Bitly, Dub, Shlink, YOURLS, Kutt, our own exports or any CSV, in the background.",
  Notifications:
    "Weekly and monthly email reports to any address (each mail with an unsubscribe link), and alerts on visitors and conversion rate by email and the webhook event `alert.triggered` (docs/notifications.md).",
} as const;
export const ADMIN_TAGS = {
  Accounts: "Accounts, their tier and monthly limit overrides.",
  "API keys": "API keys of an account: created with scopes and an optional IP allowlist, revoked at once.",
  Members: "Team members of an account.",
} as const;
export type Tag = keyof typeof PUBLIC_TAGS | keyof typeof ADMIN_TAGS;

export type SuccessStatus = 200 | 201 | 202 | 207 | 422;

export interface SuccessDoc {
  description: string;
  /** The envelope's `data`. */
  data: TSchema;
  /** `data` is one page of a list; `meta` carries page, per_page, total and total_pages. */
  paginated?: boolean;
  /** The envelope's `success` (false for a partly or wholly failed bulk import). */
  success?: boolean;
  headers?: DocumentedHeader[];
  /** `data` of a real response, shown on the reference page (tests check it against `data`). */
  example?: unknown;
}

/** A success answer that is not the JSON envelope (an image): its media types; errors stay in the envelope. */
export interface RawSuccessDoc {
  description: string;
  media: string[];
  /** What the body holds (e.g. an export's columns), the description of every media type's schema. */
  mediaDescription?: string;
  headers?: DocumentedHeader[];
}

/**
 * What a report (a read of ClickHouse, with the account's facts from Postgres) can answer besides its
 * own errors: the time limit, or a store that cannot be reached (503, Retry-After).
 */
export const REPORT_ERRORS: ErrorCode[] = ["QUERY_TIMEOUT", "CLICKHOUSE_UNAVAILABLE", "POSTGRES_UNAVAILABLE"];

/** An error the route itself raises; `details` overrides the code's usual details schema. */
export type ErrorDoc = ErrorCode | { code: ErrorCode; details: TSchema };

export interface RequestBodyDoc {
  description?: string;
  /** Media type → schema (omitted for raw bytes). */
  content: Record<string, TSchema | null>;
}

export interface OperationSpec {
  /** Stable operationId, camelCase: the typed client's and the reference page's name for it. */
  id: string;
  tag: Tag;
  summary: string;
  description?: string;
  /** Documents a body the handler checks itself (journey ingest, bulk, image upload); other routes' body is their `body` schema. */
  body?: RequestBodyDoc;
  /** Request headers the route reads, e.g. X-Idempotency-Key. */
  headers?: { name: string; description: string; schema: TSchema }[];
  responses: Partial<Record<SuccessStatus, SuccessDoc | RawSuccessDoc>>;
  errors?: ErrorDoc[];
}

const SPEC = "x-svc-operation";

/** The `detail` of a documented route. A fresh object per call: Elysia merges macro details into it. */
export function operation(spec: OperationSpec): DocumentDecoration {
  const detail: Record<string, unknown> = { operationId: spec.id, summary: spec.summary, tags: [spec.tag], [SPEC]: spec };
  if (spec.description) detail.description = spec.description;
  return detail as DocumentDecoration;
}

/** The spec a route declared with operation(), if any. */
export const operationOf = (detail: unknown): OperationSpec | undefined =>
  (detail as Record<string, unknown> | undefined)?.[SPEC] as OperationSpec | undefined;
