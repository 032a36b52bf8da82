// When to try a batch again: exponential backoff with jitter, never sooner than the server's Retry-After.

export interface RetryOptions {
  /** Backoff before the first retry, in ms (default 1,000); it doubles with each failed attempt. */
  baseMs?: number;
  /** Ceiling of the backoff, in ms (default 300,000). A Retry-After longer than this is still honoured. */
  maxMs?: number;
}

/**
 * Delay after failed attempt number `attempt` (1 = the first send): "equal jitter", a random point in the
 * upper half of the exponential step, so clients that failed together do not retry together, and
 * no retry comes at once.
 */
export function backoffMs(attempt: number, opts: RetryOptions = {}, random: () => number = Math.random): number {
  const base = opts.baseMs ?? 1000;
  const max = opts.maxMs ?? 300_000;
  const step = Math.min(max, base * 2 ** Math.min(attempt - 1, 30));
  return step / 2 + random() * (step / 2);
}

/** Retry-After as ms from now: delay-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs: number): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
