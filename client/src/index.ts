// The typed client of the svc public API: openapi-fetch over the types openapi-typescript generates
// from the server's OpenAPI document (src/generated/schema.ts, written by build.ts), with retries of
// 429/503 and an async iterator over paginated lists.
import createFetchClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./generated/schema";
import { retryingFetch, type RetryOptions } from "./retry";

export { paginate, type PaginatedPath, type PageItem, type PageParams } from "./paginate";
export { errorCode, SvcApiError, type ErrorBody } from "./errors";
export { retryAfterMs, retryingFetch, type RetryOptions } from "./retry";
export type { components, operations, paths } from "./generated/schema";

export type Schemas = components["schemas"];
export type Link = Schemas["Link"];
export type LinkStats = Schemas["LinkStats"];
export type BulkCreateResult = Schemas["BulkCreateResult"];
export type JourneySummary = Schemas["JourneySummary"];
export type JourneySession = Schemas["JourneySession"];
export type JourneyEventItem = Schemas["JourneyEventItem"];
export type Funnel = Schemas["Funnel"];
/** The journey summary and funnel as answered, with `comparison` when `compare` was asked. */
export type ComparableJourneySummary = Schemas["ComparableJourneySummary"];
export type ComparableFunnel = Schemas["ComparableFunnel"];
export type ComparableConversionSummary = Schemas["ComparableConversionSummary"];
export type ComparableTimeToConvert = Schemas["ComparableTimeToConvert"];
export type Paths = Schemas["Paths"];
export type Retention = Schemas["Retention"];
export type Attribution = Schemas["Attribution"];
export type Realtime = Schemas["Realtime"];
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type WebhookDelivery = Schemas["WebhookDelivery"];
export type Domain = Schemas["Domain"];
export type Campaign = Schemas["Campaign"];
export type Share = Schemas["Share"];
export type ShareWithToken = Schemas["ShareWithToken"];
export type ReportSubscription = Schemas["ReportSubscription"];
export type Alert = Schemas["Alert"];

export interface SvcClientOptions {
  /** The server's origin (https://sho.rt) or its API root (https://sho.rt/public-api/v1). */
  baseUrl: string;
  /** An API key with the permissions of the calls you make. */
  apiKey: string;
  /** Retries of 429/503 (on by default); false turns them off. */
  retry?: RetryOptions | false;
  /** The fetch to send with (default: globalThis.fetch). */
  fetch?: (request: Request) => Promise<Response>;
  headers?: Record<string, string>;
}

/** JSON answers are typed; a CSV report or an export is read with `parseAs: "text"` or `"stream"`. */
export type SvcClient = Client<paths, "application/json">;

export const API_ROOT = "/public-api/v1";

export function createSvcClient(options: SvcClientOptions): SvcClient {
  const base = options.baseUrl.replace(/\/+$/, "");
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  return createFetchClient<paths, "application/json">({
    baseUrl: base.endsWith(API_ROOT) ? base : base + API_ROOT,
    headers: { ...options.headers, "X-API-Key": options.apiKey },
    fetch: options.retry === false ? send : retryingFetch(send, options.retry),
  });
}
