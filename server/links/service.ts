// Links: create, read, update, delete, restore, list (docs/api.md "Links"). No Elysia here.
import { AppError, notFound, validationError } from "../errors";
import type { Clickhouse } from "../storage/clickhouse/client";
import { getAccountLinkClicks } from "../analytics/read";
import type { Tier } from "../tiers";
import { emitEvent } from "../webhooks/outbox";
import { isUniqueViolation } from "../storage/postgres/errors";
import { domainNamesByIds, findAccountDomainIdByName } from "../domains/read";
import type { DbOrTx, Postgres } from "../storage/postgres/client";
import type { AccountRecord } from "../accounts/principal";
import type { Page } from "../http/envelope";
import { CLICKS_SORT, UTM_FIELDS, type CreateLinkInput, type LinkJson, type ListLinksInput, type UpdateLinkInput } from "./model";
import * as repo from "./repository";
import { generateShortCode, validateAlias } from "./codes";
import { checkCampaign, checkDomain, futureDate, hashLinkPassword, normalizeTags, prepareLink, wantsPassword } from "./prepare";
import { validateDestination } from "./urls";
import { checkedIsoTimeMs } from "../iso-time";
import { fetchPageMetadata } from "./metadata";
import { toLinkJson } from "./serialize";
import type { LinkCache } from "./cache";
import { normalizeFallbackUrl, normalizeRules, normalizeVariants } from "./targeting";
import type { OutboundPolicy } from "../net/outbound";

export interface LinksDeps {
  pg: Postgres;
  ch: Clickhouse;
  linkCache: LinkCache;
  baseUrl: string;
  outbound: OutboundPolicy;
}

export const RECOVERY_WINDOW_MS = 7 * 24 * 3600 * 1000;
const MAX_CODE_ATTEMPTS = 5;

export async function domainNames(db: DbOrTx, ids: (string | null)[]): Promise<Map<string, string>> {
  return domainNamesByIds(db, [...new Set(ids.filter((x): x is string => !!x))]);
}

export async function serializeLinks(deps: LinksDeps, db: DbOrTx, rows: repo.LinkRow[]) {
  const names = await domainNames(
    db,
    rows.map((r) => r.domainId),
  );
  return rows.map((r) => toLinkJson(r, deps.baseUrl, r.domainId ? names.get(r.domainId) : null));
}
const serializeOne = async (deps: LinksDeps, db: DbOrTx, row: repo.LinkRow) => (await serializeLinks(deps, db, [row]))[0];

export async function getLinkOrThrow(db: DbOrTx, accountId: string, id: string) {
  const row = await repo.findLink(db, accountId, id);
  if (!row) throw notFound("Link");
  return row;
}

/** Inserts with a generated code, retrying on the (rare) collision; a taken alias is 409. */
export async function insertWithCode(db: DbOrTx, row: Omit<repo.NewLink, "shortCode"> & { shortCode?: string }): Promise<repo.LinkRow> {
  for (let attempt = 1; ; attempt++) {
    const shortCode = row.shortCode ?? generateShortCode();
    try {
      // A savepoint per attempt keeps the surrounding transaction usable after a unique violation.
      return await db.transaction(async (sp) => (await repo.insertLinks(sp, [{ ...row, shortCode }]))[0]);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (row.shortCode)
        throw new AppError("ALIAS_TAKEN", `The short code "${row.shortCode}" is already in use`, {
          field: "body.custom_alias",
          alias: row.shortCode,
        });
      if (attempt >= MAX_CODE_ATTEMPTS) throw err;
    }
  }
}

export async function createLink(deps: LinksDeps, account: AccountRecord, input: CreateLinkInput) {
  const prepared = await prepareLink(deps.pg.db, account, input);
  if (input.title === undefined || input.description === undefined) {
    const meta = await fetchPageMetadata(prepared.originalUrl, deps.outbound);
    prepared.title ??= meta.title ?? null;
    prepared.description ??= meta.description ?? null;
    prepared.ogImage ??= meta.image ?? null;
  }
  const { row, json } = await deps.pg.db.transaction(async (tx) => {
    const row = await insertWithCode(tx, prepared);
    const json = await serializeOne(deps, tx, row);
    await emitEvent(tx, account.id, "link.created", json);
    return { row, json };
  });
  await deps.linkCache.invalidate(row.domainId, row.shortCode); // drops a cached "unknown code"
  return json;
}

/** Where the link has pointed: the current destination since its last change, then the earlier ones, newest first. */
export async function getLinkDestinations(deps: LinksDeps, accountId: string, id: string) {
  const link = await getLinkOrThrow(deps.pg.db, accountId, id);
  const changes = await repo.listDestinationChanges(deps.pg.db, link.id);
  const since = (i: number) => (changes[i] ? changes[i].changedAt : link.createdAt).toISOString();
  return [
    { url: link.originalUrl, from: since(0), until: null },
    ...changes.map((c, i) => ({ url: c.previousUrl, from: since(i + 1), until: c.changedAt.toISOString() })),
  ];
}

export async function getLink(deps: LinksDeps, accountId: string, id: string) {
  return serializeOne(deps, deps.pg.db, await getLinkOrThrow(deps.pg.db, accountId, id));
}

/** A time filter of the list as UTC ISO 8601 (a time without an offset is UTC); 400 when it does not exist. */
function utcTime(q: ListLinksInput, field: "created_after" | "created_before" | "last_active_after") {
  const value = q[field];
  if (value === undefined) return undefined;
  const ms = checkedIsoTimeMs(value);
  if (Number.isNaN(ms)) throw validationError(`query.${field}`, "must be an ISO 8601 date or date-time");
  return new Date(ms).toISOString();
}

export async function listLinks(deps: LinksDeps, accountId: string, q: ListLinksInput): Promise<Page<LinkJson>> {
  const tagList =
    q.tags === undefined
      ? []
      : (Array.isArray(q.tags) ? q.tags : [q.tags])
          .flatMap((t) => t.split(","))
          .map((t) => t.trim())
          .filter(Boolean);
  const times = {
    created_after: utcTime(q, "created_after"),
    created_before: utcTime(q, "created_before"),
    last_active_after: utcTime(q, "last_active_after"),
  };
  const namedDomainId = q.domain ? await findAccountDomainIdByName(deps.pg.db, accountId, q.domain.toLowerCase()) : undefined;
  const filter: repo.ListFilter = { ...q, ...times, tagList, namedDomainId };
  if (q.sort_by === CLICKS_SORT) return listLinksByClicks(deps, accountId, filter);
  const { rows, total, page, perPage } = await repo.listLinkRows(deps.pg.db, accountId, filter);
  return { items: await serializeLinks(deps, deps.pg.db, rows), meta: { page, per_page: perPage, total } };
}

/**
 * sort_by=clicks_7d: people's clicks per link of the last 7 days from the click analytics (one aggregate
 * query: the links clicked in that time), then one page of the filtered links in that order, read by
 * Postgres (links without clicks count 0; ties newest first).
 */
async function listLinksByClicks(deps: LinksDeps, accountId: string, q: repo.ListFilter): Promise<Page<LinkJson>> {
  const since = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
  const clicks = await getAccountLinkClicks(deps.ch, { accountId, since });
  const { rows, total, page, perPage } = await repo.listLinkRowsByCount(deps.pg.db, accountId, q, clicks);
  return { items: await serializeLinks(deps, deps.pg.db, rows), meta: { page, per_page: perPage, total } };
}

/** The new destination of a PATCH (`url`, or its other name `original_url`), validated; undefined when unchanged. */
function newDestination(input: UpdateLinkInput, current: string): string | undefined {
  if (input.url !== undefined && input.original_url !== undefined && input.url !== input.original_url) {
    throw validationError("body.original_url", "names another URL than url; give one of them");
  }
  const field = input.url !== undefined ? "body.url" : "body.original_url";
  const value = input.url ?? input.original_url;
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw validationError(field, "must be a URL");
  const url = validateDestination(value, field);
  return url === current ? undefined : url;
}

export async function updateLink(deps: LinksDeps, account: AccountRecord, id: string, input: UpdateLinkInput) {
  const before = await getLinkOrThrow(deps.pg.db, account.id, id);
  const patch: Partial<repo.NewLink> = {};
  const destination = newDestination(input, before.originalUrl);
  if (destination !== undefined) patch.originalUrl = destination;
  if (input.custom_alias !== undefined && input.custom_alias !== before.shortCode)
    patch.shortCode = validateAlias(input.custom_alias, account.tier as Tier);
  if (input.title !== undefined) patch.title = input.title;
  if (input.description !== undefined) patch.description = input.description;
  if (input.og_image) validateDestination(input.og_image, "body.og_image");
  if (input.og_image !== undefined) patch.ogImage = input.og_image || null;
  if (input.tags !== undefined) patch.tags = normalizeTags(input.tags);
  if (input.expires_at !== undefined) patch.expiresAt = input.expires_at === null ? null : futureDate(input.expires_at, "body.expires_at");
  if (input.expires_at !== undefined) patch.expiredNotifiedAt = null;
  if (input.is_active !== undefined) patch.isActive = input.is_active;
  const protect = wantsPassword(input);
  if (protect === false) patch.passwordHash = null;
  if (protect === true) {
    if (input.password) patch.passwordHash = await hashLinkPassword(input);
    else if (!before.passwordHash) throw validationError("body.password", "is required when is_password_protected is true");
  }
  if (input.domain_id !== undefined && input.domain_id !== before.domainId) {
    if (input.domain_id !== null) await checkDomain(deps.pg.db, account.id, input.domain_id);
    patch.domainId = input.domain_id; // null: back to BASE_URL's host
  }
  if (input.campaign_id === null) patch.campaignId = null;
  else if (input.campaign_id !== undefined) {
    await checkCampaign(deps.pg.db, account, input.campaign_id);
    patch.campaignId = input.campaign_id;
  }
  for (const [field, column] of UTM_FIELDS) {
    const value = input[field];
    if (value !== undefined) patch[column] = value === "" ? null : value; // merge: omitted keeps, "" clears
  }
  if (input.track_conversions !== undefined) patch.trackConversions = input.track_conversions;
  Object.assign(patch, targetingPatch(input, before));

  const { row, json } = await deps.pg.db.transaction(async (tx) => {
    // What the url replaces is read under the row's lock: a concurrent PATCH may have changed it since `before`.
    const replaced = destination !== undefined ? await repo.lockLinkDestination(tx, id) : undefined;
    let row: repo.LinkRow;
    try {
      row = await tx.transaction(async (sp) => repo.updateLinkRow(sp, id, patch));
    } catch (err) {
      if (isUniqueViolation(err)) {
        const code = patch.shortCode ?? before.shortCode;
        const field = patch.shortCode ? "body.custom_alias" : "body.domain_id";
        throw new AppError("ALIAS_TAKEN", `The short code "${code}" is already in use on that domain`, { field, alias: code });
      }
      throw err;
    }
    if (destination !== undefined && replaced !== undefined && replaced !== destination)
      await repo.insertDestinationChange(tx, id, replaced, destination);
    const json = await serializeOne(deps, tx, row);
    await emitEvent(tx, account.id, "link.updated", json);
    return { row, json };
  });
  await deps.linkCache.invalidate(before.domainId, before.shortCode);
  if (row.shortCode !== before.shortCode || row.domainId !== before.domainId) await deps.linkCache.invalidate(row.domainId, row.shortCode);
  return json;
}

/** Rules and variants replace (null or [] clears); the limit and fallback URLs: a value sets, null clears. */
function targetingPatch(input: UpdateLinkInput, before: repo.LinkRow): Partial<repo.NewLink> {
  const patch: Partial<repo.NewLink> = {};
  if (input.rules !== undefined) patch.rules = normalizeRules(input.rules, "body.");
  if (input.variants !== undefined) patch.variants = normalizeVariants(input.variants, "body.");
  if (input.max_clicks_url !== undefined) patch.maxClicksUrl = normalizeFallbackUrl(input.max_clicks_url, "body.max_clicks_url");
  if (input.expired_url !== undefined) patch.expiredUrl = normalizeFallbackUrl(input.expired_url, "body.expired_url");
  if (input.max_clicks !== undefined && input.max_clicks !== before.maxClicks) {
    patch.maxClicks = input.max_clicks;
    // A new limit may be above the count: it is announced again when reached. Removing it resets the count.
    patch.limitNotifiedAt = null;
    if (input.max_clicks === null) patch.countedClicks = 0;
  }
  return patch;
}

export async function deleteLink(deps: LinksDeps, accountId: string, id: string) {
  const row = await deps.pg.db.transaction(async (tx) => {
    const link = await getLinkOrThrow(tx, accountId, id);
    const row = await repo.updateLinkRow(tx, link.id, { deletedAt: new Date() });
    await emitEvent(tx, accountId, "link.deleted", await serializeOne(deps, tx, row));
    return row;
  });
  await deps.linkCache.invalidate(row.domainId, row.shortCode);
  return {
    message: `Link ${row.shortCode} deleted; it can be restored until ${new Date(row.deletedAt!.getTime() + RECOVERY_WINDOW_MS).toISOString()}`,
  };
}

export async function restoreLink(deps: LinksDeps, accountId: string, id: string) {
  const link = await repo.findLinkIncludingDeleted(deps.pg.db, accountId, id);
  const tooLate = () => new AppError("GONE", "The link was deleted more than 7 days ago and can no longer be restored");
  if (!link) throw (await repo.wasPurged(deps.pg.db, accountId, id)) ? tooLate() : notFound("Link");
  if (!link.deletedAt) return serializeOne(deps, deps.pg.db, link);
  if (Date.now() - link.deletedAt.getTime() > RECOVERY_WINDOW_MS) throw tooLate();
  const json = await deps.pg.db.transaction(async (tx) => {
    const row = await repo.updateLinkRow(tx, id, { deletedAt: null });
    const json = await serializeOne(deps, tx, row);
    await emitEvent(tx, accountId, "link.updated", json);
    return json;
  });
  await deps.linkCache.invalidate(link.domainId, link.shortCode);
  return json;
}

const TOMBSTONE_DAYS = 90;

/**
 * The purge job: links deleted more than 7 days ago are removed for good (their codes become free);
 * a restore of one answers 410 for 90 days more.
 */
export const purgeDeletedLinks = (pg: Postgres, now = Date.now()) =>
  repo.purgeDeletedBefore(pg.db, new Date(now - RECOVERY_WINDOW_MS), new Date(now - TOMBSTONE_DAYS * 86_400_000));
