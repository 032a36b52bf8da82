// Webhook endpoints and their deliveries: the API's logic (no Elysia here).
import { AppError, notFound, validationError } from "../errors";
import { TIER_LIMITS } from "../tiers";
import type { AccountRecord } from "../http/auth";
import { attemptDelivery, type DeliveryDeps } from "./deliver";
import { LEASE_SECONDS } from "./dispatcher";
import { encryptSecret, generateWebhookSecret } from "./secrets";
import { checkWebhookUrl } from "./url-guard";
import { toDeliveryJson, toEndpointJson, type CreateWebhookInput, type UpdateWebhookInput } from "./model";
import * as repo from "./repository";

export const DELIVERIES_LISTED = 50;

async function assertUsableUrl(deps: DeliveryDeps, url: string) {
  const refused = await checkWebhookUrl(url, deps.outbound);
  if (refused) throw validationError("body.url", refused);
}

export async function getEndpointOrThrow(deps: DeliveryDeps, accountId: string, id: string) {
  const endpoint = await repo.findEndpoint(deps.pg.db, accountId, id);
  if (!endpoint) throw notFound("Webhook endpoint");
  return endpoint;
}

export async function listWebhooks(deps: DeliveryDeps, accountId: string) {
  return (await repo.listEndpointRows(deps.pg.db, accountId)).map(toEndpointJson);
}

export async function createWebhook(deps: DeliveryDeps, account: AccountRecord, body: CreateWebhookInput) {
  await assertUsableUrl(deps, body.url);
  const secret = generateWebhookSecret();
  const row = await deps.pg.db.transaction(async (tx) => {
    const max = TIER_LIMITS[account.tier].webhookEndpoints;
    if ((await repo.countEndpoints(tx, account.id)) >= max) {
      throw new AppError("QUOTA_EXCEEDED", `The ${account.tier} tier allows ${max} webhook endpoint(s)`, {
        limit: max,
        tier: account.tier,
      });
    }
    return repo.insertEndpoint(tx, {
      accountId: account.id,
      url: body.url,
      events: body.events,
      description: body.description ?? null,
      secretEncrypted: encryptSecret(deps.config.appSecret, secret),
    });
  });
  return { ...toEndpointJson(row), secret };
}

export async function updateWebhook(deps: DeliveryDeps, accountId: string, id: string, body: UpdateWebhookInput) {
  if (body.url !== undefined) await assertUsableUrl(deps, body.url);
  const row = await deps.pg.db.transaction(async (tx) => {
    const current = await repo.findEndpoint(tx, accountId, id);
    if (!current) throw notFound("Webhook endpoint");
    const enabling = body.is_active === true && !current.isActive;
    const disabling = body.is_active === false && current.isActive;
    const patch = Object.fromEntries(
      Object.entries({
        url: body.url,
        events: body.events,
        description: body.description,
        isActive: body.is_active,
        ...(enabling ? { consecutiveFailures: 0 } : {}),
      }).filter(([, v]) => v !== undefined),
    );
    if (Object.keys(patch).length === 0) return current;
    const next = await repo.updateEndpointRow(tx, accountId, id, patch);
    if (disabling) await repo.stopOpenDeliveries(tx, id, "Endpoint disabled");
    return next;
  });
  return toEndpointJson(row);
}

export async function deleteWebhook(deps: DeliveryDeps, accountId: string, id: string) {
  if (!(await repo.deleteEndpointRow(deps.pg.db, accountId, id))) throw notFound("Webhook endpoint");
  return { message: "Webhook endpoint deleted" };
}

export async function listDeliveries(deps: DeliveryDeps, accountId: string, id: string) {
  await getEndpointOrThrow(deps, accountId, id);
  return (await repo.listDeliveryRows(deps.pg.db, id, DELIVERIES_LISTED)).map(toDeliveryJson);
}

/** Sends event `test` now and answers with the delivery after that attempt (retried like any other if it failed). */
export async function sendTestDelivery(deps: DeliveryDeps, accountId: string, id: string) {
  const endpoint = await getEndpointOrThrow(deps, accountId, id);
  const payload = {
    event: "test",
    timestamp: new Date().toISOString(),
    data: { webhook_id: endpoint.id, message: "This is a test delivery. Your endpoint is reachable and can verify signatures." },
  };
  const delivery = await repo.insertLeasedDelivery(deps.pg.db, {
    endpointId: endpoint.id,
    accountId,
    eventType: "test",
    payload,
    leaseSeconds: LEASE_SECONDS,
  });
  return toDeliveryJson(await attemptDelivery(deps, delivery, endpoint));
}
