// The console's API layer. Both kinds of route send the session cookie (same origin) and, on writes, the
// session's X-CSRF-Token, and both turn the API's two error forms (object and rate-limit string) into one
// ApiError that names its fields.
// - The public API (/public-api/v1), the same routes as every API user: `api`, openapi-fetch typed by the
//   types the typed client generates from the OpenAPI document, so each path, its parameters, its body and
//   its answer are checked when the console is type-checked. `ok(api.GET(...))` is the answer's `data`.
// - The session-only routes (/console/api), which are not in the public document: `get`, `post`, `patch`
//   and `del`, typed by the server's own types (types.ts).
import createClient from "openapi-fetch";
import type { paths } from "../../client/src/generated/schema";

export const API = "/public-api/v1";
export const CONSOLE = "/console/api";

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly retryAfter?: number,
  ) {
    super(message);
  }
  /**
   * Per-field messages keyed by the field name without its location (`body.url` → `url`); a 404 that
   * names its field (`details.field`: the link or domain a parameter names) gives its message there too.
   */
  get fields(): Record<string, string> {
    const out: Record<string, string> = {};
    const named = this.details.field;
    if (typeof named === "string") out[named.replace(/^(body|query|path)\./, "")] = this.message;
    for (const f of (this.details.fields as FieldError[] | undefined) ?? []) out[f.field.replace(/^(body|query|path)\./, "")] = f.message;
    return out;
  }
}

export interface Page<T> {
  items: T[];
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
}

let csrfToken = "";
/** Set from the session; sent on every write. */
export const setCsrfToken = (token: string) => {
  csrfToken = token;
};

/** Called when any request answers 401, so the app can return to the sign-in page. */
let onUnauthorized: () => void = () => {};
export const whenSignedOut = (f: () => void) => {
  onUnauthorized = f;
};

const networkError = () => new ApiError(0, "NETWORK_ERROR", "The server could not be reached. Check your connection and try again.");

/** Every request of the console: the CSRF token on writes; a failed connection becomes an ApiError. */
async function send(request: Request): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") request.headers.set("x-csrf-token", csrfToken);
  try {
    return await fetch(request);
  } catch {
    throw networkError();
  }
}

/** An error answer (either form) as an ApiError; a 401 outside the sign-in routes ends the console's session. */
function failure(res: Response, payload: any): ApiError {
  const err = payload?.error;
  const retry = Number(res.headers.get("retry-after")) || undefined;
  const error =
    typeof err === "string"
      ? new ApiError(res.status, err, payload.message ?? err, {}, retry)
      : new ApiError(res.status, err?.code ?? "ERROR", err?.message ?? `The server answered ${res.status}`, err?.details ?? {}, retry);
  if (res.status === 401 && !new URL(res.url || "/", location.href).pathname.startsWith(`${CONSOLE}/auth`)) onUnauthorized();
  return error;
}

/** The public API, typed by the OpenAPI document. */
export const api = createClient<paths, "application/json">({ baseUrl: API, fetch: send, headers: { accept: "application/json" } });

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The `data` of a public API call's answer; an error answer is thrown as an ApiError. */
export async function ok<T extends { data: unknown }>(call: Promise<Answer<T>>): Promise<T["data"]> {
  const { data, error, response } = await call;
  if (response.ok && data !== undefined) return data.data;
  throw failure(response, error);
}

/** One page of a paginated public list. */
export async function okPage<T extends { data: unknown[]; meta: { page: number; per_page: number; total: number; total_pages: number } }>(
  call: Promise<Answer<T>>,
): Promise<Page<T["data"][number]>> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw failure(response, error);
  const { meta } = data;
  return { items: data.data, page: meta.page, perPage: meta.per_page, total: meta.total, totalPages: meta.total_pages };
}

/** A binary answer (an image) as a Blob; an error answer is thrown as an ApiError. */
export async function okBlob(call: Promise<Answer<unknown>>): Promise<Blob> {
  const { data, error, response } = await call;
  if (response.ok && data instanceof Blob) return data;
  throw failure(response, error);
}

/** Raw bytes as a request body (image uploads), with their own content type. */
export const rawBody = (file: Blob) => ({
  body: file as never,
  bodySerializer: (b: unknown) => b as Blob,
  headers: { "content-type": file.type },
});

// The session-only routes.

export function url(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== "") params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

type ConsolePath = `${typeof CONSOLE}/${string}`;

async function call(method: string, path: ConsolePath, json?: unknown) {
  const headers: Record<string, string> = { accept: "application/json" };
  if (json !== undefined) headers["content-type"] = "application/json";
  const res = await send(new Request(path, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) }));
  const payload = await res.json().catch(() => null);
  if (res.ok && payload?.success !== false) return payload.data;
  throw failure(res, payload);
}

export const get = <T>(path: ConsolePath, query?: Query): Promise<T> => call("GET", url(path, query) as ConsolePath);
export const post = <T>(path: ConsolePath, json?: unknown): Promise<T> => call("POST", path, json ?? {});
export const patch = <T>(path: ConsolePath, json: unknown): Promise<T> => call("PATCH", path, json);
export const del = <T>(path: ConsolePath): Promise<T> => call("DELETE", path);
