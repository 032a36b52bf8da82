// The console's typed fetch layer: the same public API as everyone (/public-api/v1) plus the session-only
// routes (/console/api), with the session cookie (same origin) and, on writes, the session's X-CSRF-Token.
// Both error forms of the API (object and rate-limit string) become one ApiError that names its fields.

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
  /** Per-field messages keyed by the field name without its location (`body.url` → `url`). */
  get fields(): Record<string, string> {
    const out: Record<string, string> = {};
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

export function url(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== "") params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function send(method: string, path: string, init: { query?: Query; json?: unknown; body?: BodyInit; type?: string } = {}) {
  const headers: Record<string, string> = { accept: "application/json" };
  if (method !== "GET") headers["x-csrf-token"] = csrfToken;
  let body = init.body;
  if (init.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.json);
  } else if (init.type) headers["content-type"] = init.type;
  let res: Response;
  try {
    res = await fetch(url(path, init.query), { method, headers, body, credentials: "same-origin" });
  } catch {
    throw new ApiError(0, "NETWORK_ERROR", "The server could not be reached. Check your connection and try again.");
  }
  const payload = await res.json().catch(() => null);
  if (res.ok && payload?.success !== false) return payload;
  const err = payload?.error;
  const retry = Number(res.headers.get("retry-after")) || undefined;
  const error =
    typeof err === "string"
      ? new ApiError(res.status, err, payload.message ?? err, {}, retry)
      : new ApiError(res.status, err?.code ?? "ERROR", err?.message ?? `The server answered ${res.status}`, err?.details ?? {}, retry);
  if (res.status === 401 && !path.startsWith(`${CONSOLE}/auth`)) onUnauthorized();
  throw error;
}

export const get = async <T>(path: string, query?: Query): Promise<T> => (await send("GET", path, { query })).data;

export async function getPage<T>(path: string, query?: Query): Promise<Page<T>> {
  const body = await send("GET", path, { query });
  return { items: body.data, page: body.meta.page, perPage: body.meta.per_page, total: body.meta.total, totalPages: body.meta.total_pages };
}

export const post = async <T>(path: string, json?: unknown): Promise<T> => (await send("POST", path, { json: json ?? {} })).data;
export const patch = async <T>(path: string, json: unknown): Promise<T> => (await send("PATCH", path, { json })).data;
export const del = async <T>(path: string): Promise<T> => (await send("DELETE", path)).data;
export const putBytes = async <T>(path: string, file: Blob): Promise<T> => (await send("PUT", path, { body: file, type: file.type })).data;
