// Failures of a store that are not the request's fault, named by store: the HTTP layer answers them
// 503 with Retry-After (http/error-mapping.ts) instead of a vague 500.
export type StoreName = "clickhouse" | "postgres";

// The cause's own words, for the logs (the API answer never shows them).
const causeText = (cause: unknown) => String((cause as Error)?.message ?? cause).slice(0, 300);

/** The store could not be reached (refused, reset, no answer in time) or refused work it is too busy for. */
export class StoreUnavailableError extends Error {
  constructor(
    readonly store: StoreName,
    options?: { cause?: unknown },
  ) {
    super(`${store} is unavailable: ${causeText(options?.cause)}`, options);
    this.name = "StoreUnavailableError";
  }
}

/** A read ran past its time limit and was stopped. */
export class QueryTimeoutError extends Error {
  constructor(
    readonly store: StoreName,
    readonly limitMs: number,
    options?: { cause?: unknown },
  ) {
    super(`${store} query ran past its limit of ${limitMs} ms: ${causeText(options?.cause)}`, options);
    this.name = "QueryTimeoutError";
  }
}
