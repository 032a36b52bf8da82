// Retries of 429 and 503 answers, which mean nothing was done: wait what Retry-After says (seconds
// or an HTTP date), or back off exponentially without it, and send the same request again.
export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** A Retry-After longer than this is not waited for: the 429/503 is returned (default 60 s). */
  maxDelayMs?: number;
  /** Wait before the first retry when the answer has no Retry-After, doubled each time (default 500 ms). */
  baseDelayMs?: number;
  /** Statuses that are retried (default 429 and 503). */
  statuses?: number[];
}

/** Milliseconds a Retry-After value asks for, or null when it is absent or unreadable. */
export function retryAfterMs(value: string | null, nowMs = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

const sleep = (ms: number, signal?: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** A fetch for openapi-fetch that retries as above; the request (body included) is sent again as it was. */
export function retryingFetch(base: (request: Request) => Promise<Response>, options: RetryOptions = {}) {
  const retries = options.retries ?? 3;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const statuses = options.statuses ?? [429, 503];
  return async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retries;
      const response = await base(last ? request : request.clone());
      if (last || !statuses.includes(response.status)) return response;
      const wait = retryAfterMs(response.headers.get("retry-after")) ?? baseDelayMs * 2 ** attempt;
      if (wait > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
}
