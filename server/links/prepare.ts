// Validates a create-link input against the account (tier gates, campaign, domain) and builds the row.
import { AppError, validationError } from "../errors";
import { requireTier, type Tier } from "../tiers";
import { isAccountCampaign } from "../campaigns/read";
import { findAccountDomain } from "../domains/read";
import type { DbOrTx } from "../storage/postgres/client";
import type { AccountRecord } from "../accounts/principal";
import { utmColumns, type CreateLinkInput } from "./model";
import type { NewLink } from "./repository";
import { validateAlias } from "./codes";
import { validateDestination } from "./urls";
import { checkedIsoTimeMs } from "../iso-time";
import { normalizeFallbackUrl, normalizeRules, normalizeVariants } from "./targeting";

export const normalizeTags = (tags?: string[]) => [...new Set((tags ?? []).map((t) => t.trim()).filter(Boolean))];

/** An ISO 8601 time in the future (without an offset, UTC). */
export function futureDate(value: string, field: string): Date {
  const date = new Date(checkedIsoTimeMs(value));
  if (Number.isNaN(date.getTime())) throw validationError(field, "must be an ISO 8601 date or date-time");
  if (date.getTime() <= Date.now()) throw validationError(field, "must be in the future");
  return date;
}

export async function checkCampaign(db: DbOrTx, account: AccountRecord, campaignId: string, field = "body.campaign_id") {
  requireTier(account.tier, "growth", "Campaigns need", field);
  if (!(await isAccountCampaign(db, account.id, campaignId))) throw new AppError("NOT_FOUND", "Campaign not found", { field });
}

/** The verified custom domain of the account, or an error naming domain_id. */
export async function checkDomain(db: DbOrTx, accountId: string, domainId: string, field = "body.domain_id") {
  const row = await findAccountDomain(db, accountId, domainId);
  if (!row) throw new AppError("NOT_FOUND", "Domain not found", { field });
  if (!row.verifiedAt) throw validationError(field, "the domain is not verified yet");
  return row;
}

/**
 * A password turns protection on: `password` without `is_password_protected` protects the link (it used to
 * be ignored, leaving a link its owner believed protected open to everyone); `password` with
 * `is_password_protected: false` contradicts itself and is refused; `true` without a password is refused.
 */
export function wantsPassword(input: { is_password_protected?: boolean; password?: string }, field = "body.password"): boolean | undefined {
  if (input.password !== undefined && input.is_password_protected === false) {
    throw validationError(field, "cannot be set when is_password_protected is false; leave one of them out");
  }
  return input.password !== undefined ? true : input.is_password_protected;
}

export async function hashLinkPassword(input: { is_password_protected?: boolean; password?: string }, field = "body.password") {
  if (wantsPassword(input, field) !== true) return null;
  if (!input.password) throw validationError(field, "is required when is_password_protected is true");
  return Bun.password.hash(input.password);
}

/** `at` prefixes field names in errors: "body." for one link, "body.<index>." for a bulk item. */
export async function prepareLink(
  db: DbOrTx,
  account: AccountRecord,
  input: CreateLinkInput,
  at = "body.",
): Promise<Omit<NewLink, "shortCode"> & { shortCode?: string }> {
  const originalUrl = validateDestination(input.url, `${at}url`);
  const shortCode =
    input.custom_alias !== undefined ? validateAlias(input.custom_alias, account.tier as Tier, `${at}custom_alias`) : undefined;
  if (input.og_image !== undefined && input.og_image !== "") validateDestination(input.og_image, `${at}og_image`);
  const expiresAt = input.expires_at ? futureDate(input.expires_at, `${at}expires_at`) : null;
  if (input.campaign_id) await checkCampaign(db, account, input.campaign_id, `${at}campaign_id`);
  if (input.domain_id) await checkDomain(db, account.id, input.domain_id, `${at}domain_id`);
  return {
    accountId: account.id,
    shortCode,
    originalUrl,
    title: input.title ?? null,
    description: input.description ?? null,
    ogImage: input.og_image || null,
    tags: normalizeTags(input.tags),
    expiresAt,
    passwordHash: await hashLinkPassword(input, `${at}password`),
    ...utmColumns((field) => input[field] || null),
    domainId: input.domain_id ?? null,
    campaignId: input.campaign_id ?? null,
    trackConversions: input.track_conversions ?? false,
    rules: normalizeRules(input.rules, at),
    variants: normalizeVariants(input.variants, at),
    maxClicks: input.max_clicks ?? null,
    maxClicksUrl: normalizeFallbackUrl(input.max_clicks_url, `${at}max_clicks_url`),
    expiredUrl: normalizeFallbackUrl(input.expired_url, `${at}expired_url`),
  };
}
