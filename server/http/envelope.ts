// The response envelope (docs/api.md "Responses and errors"): success bodies, the object error form and the string (rate-limit) form.
import type { AppError } from "../errors";

export interface PageMeta {
  page: number;
  per_page: number;
  total: number;
}

/** A page of a list, as a service returns it (plain values; the route wraps it in Paginated). */
export interface Page<T> {
  items: T[];
  meta: PageMeta;
}

/** Returned by list handlers; the envelope puts the items in `data` and the numbers in `meta`. */
export class Paginated<T> {
  constructor(
    readonly items: T[],
    readonly meta: PageMeta,
  ) {}

  static of<T>(page: Page<T>): Paginated<T> {
    return new Paginated(page.items, page.meta);
  }
}

/** Returned by handlers that need extra top-level fields or a custom status. */
export class Envelope<T> {
  constructor(
    readonly data: T,
    readonly status = 200,
    readonly success = true,
    readonly headers?: Record<string, string>,
  ) {}
}

export const baseMeta = (requestId: string) => ({ request_id: requestId, timestamp: new Date().toISOString() });

export function successBody(requestId: string, data: unknown, success = true) {
  if (data instanceof Paginated) {
    const { page, per_page, total } = data.meta;
    return {
      success,
      data: data.items,
      meta: { ...baseMeta(requestId), page, per_page, total, total_pages: Math.ceil(total / per_page) },
    };
  }
  return { success, data, meta: baseMeta(requestId) };
}

export function errorBody(requestId: string, err: Pick<AppError, "code" | "message" | "details" | "status">) {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details) error.details = err.details;
  return { success: false, error, meta: { ...baseMeta(requestId), status: err.status } };
}

export const rateLimitBody = (message: string) => ({ success: false, error: "RATE_LIMIT_EXCEEDED", message });
