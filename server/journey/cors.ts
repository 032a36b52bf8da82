// CORS for the ingest route only: the tracker posts cross-origin from customer sites.
import { API_PREFIX } from "../http/api-prefix";

export const INGEST_PATH = `${API_PREFIX}/journey/events`;

export function ingestCorsHeaders(origin: string | null): Record<string, string> {
  return {
    "access-control-allow-origin": origin || "*",
    "access-control-expose-headers": "x-journey-warning, x-journey-usage, retry-after, x-request-id",
    vary: "Origin",
  };
}

export function preflightHeaders(origin: string | null): Record<string, string> {
  return {
    "access-control-allow-origin": origin || "*",
    "access-control-allow-methods": "POST",
    "access-control-allow-headers": "X-API-Key, X-Idempotency-Key, Content-Type",
    "access-control-max-age": "86400",
    vary: "Origin",
  };
}
