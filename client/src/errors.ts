// What a failed call answered, whichever of the API's two error forms it used.
import type { components } from "./generated/schema";

/** The string form (429 RATE_LIMIT_EXCEEDED) or the object form of an error body. */
export type ErrorBody =
  | components["schemas"]["RateLimitError"]
  | { success: false; error: { code: string; message: string; details?: unknown } };

/** The error code of an error body: `RATE_LIMIT_EXCEEDED`, `NOT_FOUND`, `VALIDATION_ERROR`… */
export function errorCode(body: ErrorBody): string {
  return typeof body.error === "string" ? body.error : body.error.code;
}

/** Thrown by paginate() (plain calls return `{ data, error }` instead). */
export class SvcApiError extends Error {
  readonly code: string;
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(`${status} ${errorCode(body)}: ${typeof body.error === "string" ? body.message : body.error.message}`);
    this.name = "SvcApiError";
    this.code = errorCode(body);
  }
}
