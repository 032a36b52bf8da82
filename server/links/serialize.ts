// The Link object of the API (docs/api.md "Links"), from a row.
import { shortUrl } from "./urls";
import type { LinkRow } from "./repository";
import { utmJson, type LinkJson } from "./model";
import { linkStatus } from "./status";

export function toLinkJson(row: LinkRow, baseUrl: string, domainName?: string | null): LinkJson {
  return {
    id: row.id,
    short_code: row.shortCode,
    short_url: shortUrl(baseUrl, row.shortCode, domainName),
    original_url: row.originalUrl,
    title: row.title ?? "",
    description: row.description ?? "",
    og_image: row.ogImage,
    tags: row.tags,
    is_active: row.isActive,
    status: linkStatus(row),
    is_password_protected: row.passwordHash !== null,
    expires_at: row.expiresAt?.toISOString() ?? null,
    ...utmJson(row),
    domain_id: row.domainId,
    campaign_id: row.campaignId,
    track_conversions: row.trackConversions,
    // Stored as validated on input (targeting.ts).
    rules: (row.rules ?? []) as LinkJson["rules"],
    variants: row.variants ?? [],
    max_clicks: row.maxClicks,
    max_clicks_url: row.maxClicksUrl,
    expired_url: row.expiredUrl,
    counted_clicks: row.maxClicks === null ? null : row.countedClicks,
    qr_logo: row.qrLogo,
    imported_clicks: row.importedClicks,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    last_accessed_at: row.lastAccessedAt?.toISOString() ?? null,
  };
}
