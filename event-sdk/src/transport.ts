// One attempt to deliver one batch, and what its answer means for the batch.
import { retryAfterMs } from "./retry";
import type { JourneyEvent, JourneyUsage } from "./types";

export type Outcome =
  /** 2xx: stored now, or earlier under the same idempotency key (`alreadyProcessed`). */
  | { kind: "delivered"; count: number; alreadyProcessed: boolean; usage: JourneyUsage | null }
  /** Network error, timeout, 408, 429, 5xx: send the same batch again later, under the same key. */
  | { kind: "retry"; status: number; retryAfterMs: number | null; error: string }
  /** 400 naming events: those can never be stored; the rest can, under the same key (nothing was stored). */
  | { kind: "invalid"; status: number; indexes: number[]; error: string }
  /** Any other 4xx: the batch can never succeed as it is. */
  | { kind: "rejected"; status: number; error: string };

/** What the client needs of fetch (React Native's, a browser's, Node's, Bun's, or a wrapper). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface SendOptions {
  url: string;
  apiKey: string;
  idempotencyKey: string;
  events: JourneyEvent[];
  timeoutMs: number;
  fetch: FetchLike;
}

export async function sendBatch(opts: SendOptions): Promise<Outcome> {
  // AbortSignal.timeout is missing on React Native; a controller and a timer work everywhere.
  const controller = typeof AbortController === "function" ? new AbortController() : null;
  const timer = setTimeout(() => controller?.abort(), opts.timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await opts.fetch(opts.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-API-Key": opts.apiKey, "X-Idempotency-Key": opts.idempotencyKey },
      body: JSON.stringify({ events: opts.events }),
      signal: controller?.signal,
    });
    text = await res.text();
  } catch (err) {
    return { kind: "retry", status: 0, retryAfterMs: null, error: `network error: ${String((err as Error)?.message ?? err)}` };
  } finally {
    clearTimeout(timer);
  }
  return classify(res.status, res.headers.get("retry-after"), text, Date.now());
}

export function classify(status: number, retryAfter: string | null, text: string, nowMs: number): Outcome {
  const body = parse(text);
  if (status >= 200 && status < 300) {
    const data = (body?.data ?? {}) as { count?: number; already_processed?: boolean; usage?: JourneyUsage };
    return {
      kind: "delivered",
      count: Number(data.count ?? 0),
      alreadyProcessed: data.already_processed === true,
      usage: data.usage ?? null,
    };
  }
  const error = describe(status, body, text);
  if (status === 408 || status === 429 || status >= 500)
    return { kind: "retry", status, retryAfterMs: retryAfterMs(retryAfter, nowMs), error };
  if (status === 400) {
    const fields = (body?.error as { details?: { fields?: { index?: unknown }[] } } | undefined)?.details?.fields ?? [];
    const indexes = [...new Set(fields.map((f) => f.index).filter((i): i is number => Number.isInteger(i)))];
    if (indexes.length) return { kind: "invalid", status, indexes, error };
  }
  return { kind: "rejected", status, error };
}

function parse(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" ? v : null;
  } catch {
    return null;
  }
}

/** "401 UNAUTHORIZED: Invalid API key", from the object-form error envelope or the string form. */
function describe(status: number, body: Record<string, unknown> | null, text: string): string {
  const err = body?.error;
  if (err && typeof err === "object") {
    const { code, message } = err as { code?: string; message?: string };
    return `${status} ${code ?? ""}: ${message ?? ""}`.trim();
  }
  if (typeof err === "string") return `${status}: ${err}`;
  return `${status}: ${text.slice(0, 200)}`;
}
