// Every error the API can answer with: one code → status table (docs/api.md "Errors").
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_PERMISSIONS: 403,
  FORBIDDEN: 403,
  CROSS_SITE_REQUEST: 403,
  IP_NOT_ALLOWED: 403,
  TIER_UPGRADE_REQUIRED: 403,
  QUOTA_EXCEEDED: 403,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  ALIAS_TAKEN: 409,
  CONFLICT: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMIT_EXCEEDED: 429,
  JOURNEY_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  QUERY_TIMEOUT: 503,
  CLICKHOUSE_UNAVAILABLE: 503,
  POSTGRES_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what = "Resource") => new AppError("NOT_FOUND", `${what} not found`);

export const validationError = (field: string, message: string, extra: Record<string, unknown> = {}) =>
  new AppError("VALIDATION_ERROR", `${field}: ${message}`, { fields: [{ field, message }], ...extra });
