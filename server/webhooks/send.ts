// One HTTP attempt: POST the exact signed bytes, 10 s timeout, no redirects, first 1 KB of the answer kept.
import { checkWebhookUrlForm } from "./url-guard";
import { guardedFetch, OutboundRefused, readCapped, type OutboundPolicy } from "../net/outbound";
import { signDelivery } from "./signing";
import { storableText } from "../storage/text";

export const ATTEMPT_TIMEOUT_MS = 10_000;
const RESPONSE_BODY_LIMIT = 1024;

export interface AttemptRequest {
  url: string;
  secret: string;
  deliveryId: string;
  eventType: string;
  body: string;
  outbound: OutboundPolicy;
}

export interface AttemptResult {
  ok: boolean;
  httpStatus: number | null;
  responseBody: string | null;
  error: string | null;
  /** Stopped by our own shutdown: not the receiver's fault, so it does not count as an attempt. */
  aborted?: boolean;
}

export async function sendAttempt(req: AttemptRequest, stop?: AbortSignal): Promise<AttemptResult> {
  const form = checkWebhookUrlForm(req.url, req.outbound.allowPrivate);
  if ("refusal" in form) return refusedResult(form.refusal);
  const timestamp = Math.floor(Date.now() / 1000);
  const timeout = AbortSignal.timeout(ATTEMPT_TIMEOUT_MS);
  try {
    const res = await guardedFetch(
      form.url,
      {
        method: "POST",
        body: req.body,
        redirect: "manual",
        signal: stop ? AbortSignal.any([timeout, stop]) : timeout,
        headers: {
          "content-type": "application/json",
          "user-agent": "svc-webhooks/1",
          "x-svc-event": req.eventType,
          "x-svc-delivery": req.deliveryId,
          ...signDelivery(req.secret, req.deliveryId, timestamp, req.body),
        },
        // Self-signed receivers are accepted only in development and tests.
        ...(req.outbound.allowPrivate ? { tls: { rejectUnauthorized: false } } : {}),
      },
      req.outbound,
    );
    const responseBody = await readPrefix(res, RESPONSE_BODY_LIMIT);
    const ok = res.status >= 200 && res.status < 300;
    return { ok, httpStatus: res.status, responseBody, error: ok ? null : `Receiver answered HTTP ${res.status}` };
  } catch (err) {
    if (err instanceof OutboundRefused) return refusedResult(err.message);
    if (stop?.aborted) return { ok: false, httpStatus: null, responseBody: null, error: "Stopped by shutdown", aborted: true };
    const error = timeout.aborted
      ? `Timed out after ${ATTEMPT_TIMEOUT_MS / 1000} s`
      : `Network error: ${storableText(String((err as Error)?.message ?? err).slice(0, 500))}`;
    return { ok: false, httpStatus: null, responseBody: null, error };
  }
}

const refusedResult = (why: string): AttemptResult => ({ ok: false, httpStatus: null, responseBody: null, error: `Refused: URL ${why}` });

/** The first `limit` bytes of the body, as stored text; the rest is dropped unread. */
async function readPrefix(res: Response, limit: number): Promise<string> {
  // A body cut off mid-way still leaves the status, which decides the outcome.
  const bytes = await readCapped(res, limit, { keepOnError: true });
  // The receiver's bytes are stored: invalid UTF-8 decodes to U+FFFD, NUL becomes U+FFFD too.
  return storableText(new TextDecoder().decode(bytes).replace(/\uFFFD+$/, ""));
}
