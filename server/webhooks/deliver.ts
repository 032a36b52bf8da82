// Attempting a leased delivery and recording its outcome: the retry rules and auto-disable live here.
import { sql } from "drizzle-orm";
import type { AppDeps } from "../app";
import { decryptSecret } from "./secrets";
import { sendAttempt, type AttemptResult } from "./send";
import type { DeliveryRow, EndpointRow, WebhookPayload } from "./model";
import * as repo from "./repository";

export type DeliveryDeps = Pick<AppDeps, "pg" | "config" | "metrics" | "logger" | "outbound">;

/** Consecutive failed attempts after which an endpoint is disabled. */
export const DISABLE_AFTER_FAILURES = 10;

/** The bytes sent and signed, in the spec's key order (jsonb storage does not keep key order). */
export function serializePayload(stored: unknown): string {
  const p = (typeof stored === "string" ? JSON.parse(stored) : stored) as WebhookPayload;
  return JSON.stringify({ event: p.event, timestamp: p.timestamp, data: p.data });
}

export async function attemptDelivery(
  deps: DeliveryDeps,
  delivery: DeliveryRow,
  endpoint: EndpointRow,
  stop?: AbortSignal,
): Promise<DeliveryRow> {
  const result = await sendAttempt(
    {
      url: endpoint.url,
      secret: decryptSecret(deps.config.appSecret, endpoint.secretEncrypted),
      deliveryId: delivery.id,
      eventType: delivery.eventType,
      body: serializePayload(delivery.payload),
      outbound: deps.outbound,
    },
    stop,
  );
  if (result.aborted) {
    await repo.releaseLease(deps.pg.db, delivery.id);
    return delivery;
  }
  try {
    return await recordAttempt(deps, delivery, result);
  } catch (err) {
    // The attempt happened: it must count even when what the receiver answered cannot be saved, or a
    // receiver could keep the delivery pending, and us sending, forever. Saved again without its answer.
    deps.logger.error({
      msg: "webhook attempt not recorded; recording it without the answer",
      delivery_id: delivery.id,
      error: String(err),
    });
    return recordAttempt(deps, delivery, {
      ...result,
      responseBody: null,
      error: result.ok ? null : "The receiver's answer could not be saved",
    });
  }
}

async function recordAttempt(deps: DeliveryDeps, delivery: DeliveryRow, result: AttemptResult): Promise<DeliveryRow> {
  const attempt = delivery.attemptNumber + 1;
  const common = {
    attemptNumber: attempt,
    httpStatus: result.httpStatus,
    responseBody: result.responseBody,
    errorMessage: result.error,
    lockedUntil: null,
  };
  const { row, disabled } = await deps.pg.db.transaction(async (tx) => {
    if (result.ok) {
      await repo.resetFailures(tx, delivery.endpointId);
      return {
        row: await repo.updateDelivery(tx, delivery.id, { ...common, status: "delivered", deliveredAt: sql`now()`, nextRetryAt: null }),
        disabled: false,
      };
    }
    const gone = result.httpStatus === 410;
    const endpoint = await repo.countFailure(tx, delivery.endpointId, DISABLE_AFTER_FAILURES, gone);
    const active = endpoint?.isActive ?? false;
    if (endpoint && !active) {
      await repo.stopOpenDeliveries(tx, delivery.endpointId, gone ? "Endpoint disabled: receiver answered 410 Gone" : "Endpoint disabled");
    }
    const final = attempt >= delivery.maxAttempts || !active;
    const delays = deps.config.webhookRetryDelaysMs;
    const delaySeconds = (delays[Math.min(attempt - 1, delays.length - 1)] ?? 0) / 1000;
    const row = await repo.updateDelivery(tx, delivery.id, {
      ...common,
      status: final ? "failed" : "retrying",
      nextRetryAt: final ? null : sql`now() + make_interval(secs => ${delaySeconds})`,
    });
    return { row, disabled: endpoint?.wasActive === true && !active };
  });
  deps.metrics.webhookDeliveries.inc({ outcome: result.ok ? "delivered" : row?.status === "retrying" ? "retrying" : "failed" });
  if (disabled) deps.logger.info({ msg: "webhook endpoint disabled", endpoint_id: delivery.endpointId, delivery_id: delivery.id });
  return row ?? { ...delivery, ...common, status: "failed" }; // the endpoint was deleted meanwhile
}
