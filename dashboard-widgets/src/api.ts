// Owns every request the widgets make: URL building, the X-API-Key header, and turning both
// error body forms of the API (object and rate-limit string) into one ApiError.
import type { ErrorBody } from "./types";

export type Query = Record<string, string | number | null | undefined>;

export interface ApiErrorInfo {
  /** HTTP status; 0 when the request never got an answer. */
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
  /** Seconds, from Retry-After on 429 answers. */
  retryAfter?: number;
}

export class ApiError extends Error implements ApiErrorInfo {
  status: number;
  code: string;
  details?: Record<string, unknown>;
  retryAfter?: number;
  constructor(info: ApiErrorInfo) {
    super(info.message);
    this.status = info.status;
    this.code = info.code;
    this.details = info.details;
    this.retryAfter = info.retryAfter;
  }
  toJSON(): ApiErrorInfo {
    const { status, code, message, details, retryAfter } = this;
    return { status, code, message, details, retryAfter };
  }
}

/** `base` may be relative to the page (a shared dashboard's `/share/{token}/data`). */
export function buildUrl(base: string, path: string, query: Query = {}): string {
  const url = new URL(base.replace(/\/+$/, "") + path, globalThis.location?.href);
  for (const [k, v] of Object.entries(query)) if (v != null && v !== "") url.searchParams.set(k, String(v));
  return url.href;
}

/** GET a public-API path and return the envelope's `data`; throws ApiError on any failure. */
export async function apiGet<T>(base: string, path: string, query: Query, key?: string | null, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(buildUrl(base, path, query), {
      headers: key ? { "X-API-Key": key, Accept: "application/json" } : { Accept: "application/json" },
      signal,
    });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ApiError({ status: 0, code: "NETWORK_ERROR", message: `Could not reach the API at ${base}` });
  }
  let body: any;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (res.ok && body && body.success === true) return body.data as T;
  throw errorFromBody(res.status, body, res.headers.get("retry-after"));
}

function errorFromBody(status: number, body: ErrorBody | null, retryAfter: string | null): ApiError {
  const err = body?.error;
  const info: ApiErrorInfo =
    typeof err === "string"
      ? { status, code: err, message: (body as { message?: string }).message || err }
      : err && typeof err === "object"
        ? { status, code: err.code || "ERROR", message: err.message || `HTTP ${status}`, details: err.details }
        : { status, code: "BAD_RESPONSE", message: `Unexpected answer from the API (HTTP ${status})` };
  if (retryAfter && !isNaN(+retryAfter)) info.retryAfter = +retryAfter;
  return new ApiError(info);
}

/**
 * A sentence that tells a person what to do about an error; `scope` is the permission the
 * failed request needed (the API may name it in details.required).
 */
export function explainError(e: ApiErrorInfo, scope: string): string {
  const required = e.details?.required;
  const need = Array.isArray(required) ? required.join(", ") : typeof required === "string" ? required : scope;
  switch (e.status) {
    case 0:
      return e.code === "NETWORK_ERROR"
        ? "Check the api-base attribute, that the server is running, and that it allows this origin (CORS)."
        : "";
    case 401:
      return "The API key is missing or invalid (it may have been revoked). Set a valid key in the api-key attribute.";
    case 403:
      if (e.code === "IP_NOT_ALLOWED")
        return "This API key is restricted to other IP addresses; this address is not on the key's allowlist.";
      if (e.code === "INSUFFICIENT_PERMISSIONS") return `This API key lacks the ${need} scope. Use a key that has ${need}.`;
      return `Either the API key lacks the ${need} scope, or this IP address is not on the key's allowlist.`;
    case 404:
      return "Not found: check the link-id attribute (the link may have been deleted).";
    case 429:
      return e.retryAfter != null ? `Too many requests; try again in ${e.retryAfter} s.` : "Too many requests; try again later.";
  }
  return e.status >= 500 ? "The server failed to answer; try again later." : "";
}
