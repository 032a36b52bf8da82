// The attribution report (docs/insights.md "Attribution"): conversions and revenue credited to the
// links, or their campaigns, whose clicks brought each converting visitor; no Elysia here.
import { listAccountCampaigns } from "../campaigns/read";
import { findLinkLabels } from "../links/read";
import { money, percent, round2 } from "../reports/numbers";
import { DAY_MS, periodStartMs, type Period } from "../reports/period";
import { resolveReportScope } from "../reports/scope";
import { DEFAULT_WINDOW_DAYS, DIRECT_LABEL, NO_CAMPAIGN_LABEL, type AttributionGroup, type AttributionModel } from "./attribution-model";
import { getAttributionCredits, type AttributionCredit } from "./attribution-query";
import type { ConversionDeps } from "./service";

export interface AttributionQueryInput {
  period?: Period;
  domain_id?: string;
  link_id?: string;
  /** A shared campaign dashboard's live links (server/shares/); the API's route does not take it. */
  campaign_id?: string;
  model?: AttributionModel;
  window_days?: number;
  group_by?: AttributionGroup;
}

type RowKind = "link" | "campaign" | "no_campaign" | "direct";
interface Group {
  kind: RowKind;
  id: string | null;
  label: string;
  conversions: number;
  revenueCents: number;
}

export async function getAttribution(deps: ConversionDeps, accountId: string, q: AttributionQueryInput) {
  const model = q.model ?? "first";
  const windowDays = q.window_days ?? DEFAULT_WINDOW_DAYS;
  const groupBy = q.group_by ?? "link";
  const scope = await resolveReportScope(
    deps.db,
    accountId,
    { linkId: q.link_id, domainId: q.domain_id, campaignId: q.campaign_id },
    periodStartMs(q.period),
  );
  const credits = await getAttributionCredits(
    deps.ch,
    { accountId, fromMs: scope.period, windowMs: windowDays * DAY_MS, ...(scope.linkIds ? { linkIds: scope.linkIds } : {}) },
    model,
  );
  const groups = await groupCredits(deps, accountId, credits, groupBy);
  const totalConversions = Math.round(credits.reduce((n, c) => n + c.conversions, 0));
  const totalCents = Math.round(credits.reduce((n, c) => n + c.revenueCents, 0));
  const direct = groups.get("");
  const rows = [...groups.values()]
    .filter((g) => g.kind !== "direct")
    .sort((a, b) => b.conversions - a.conversions || b.revenueCents - a.revenueCents || a.label.localeCompare(b.label));
  if (direct) rows.push(direct);
  return {
    model,
    window_days: windowDays,
    group_by: groupBy,
    total_conversions: totalConversions,
    total_revenue: money(totalCents),
    attributed_conversions: totalConversions - Math.round(direct?.conversions ?? 0),
    rows: rows.map((g) => ({
      kind: g.kind,
      id: g.id,
      label: g.label,
      conversions: round2(g.conversions),
      revenue: money(g.revenueCents),
      share: percent(g.conversions, totalConversions),
    })),
  };
}

/** Credits per link, summed into the rows of `groupBy`; the key "" is the direct row. */
async function groupCredits(deps: ConversionDeps, accountId: string, credits: AttributionCredit[], groupBy: AttributionGroup) {
  const linkIds = credits.map((c) => c.linkId).filter((id) => id !== "");
  const [labels, campaigns] = await Promise.all([
    findLinkLabels(deps.db, accountId, linkIds),
    groupBy === "campaign" ? listAccountCampaigns(deps.db, accountId) : [],
  ]);
  const linkOf = new Map(labels.map((l) => [l.id, l]));
  const campaignName = new Map(campaigns.map((c) => [c.id, c.name]));
  const groups = new Map<string, Group>();
  for (const c of credits) {
    const g = groupOf(c.linkId, groupBy, linkOf, campaignName);
    const key = g.kind === "direct" ? "" : `${g.kind}:${g.id ?? ""}`;
    const sum = groups.get(key) ?? { ...g, conversions: 0, revenueCents: 0 };
    sum.conversions += c.conversions;
    sum.revenueCents += c.revenueCents;
    groups.set(key, sum);
  }
  return groups;
}

function groupOf(
  linkId: string,
  groupBy: AttributionGroup,
  linkOf: Map<string, { shortCode: string; campaignId: string | null }>,
  campaignName: Map<string, string>,
): Pick<Group, "kind" | "id" | "label"> {
  if (linkId === "") return { kind: "direct", id: null, label: DIRECT_LABEL };
  const link = linkOf.get(linkId);
  if (groupBy === "link") return { kind: "link", id: linkId, label: link?.shortCode ?? linkId };
  const campaign = link?.campaignId ?? null;
  if (campaign === null || !campaignName.has(campaign)) return { kind: "no_campaign", id: null, label: NO_CAMPAIGN_LABEL };
  return { kind: "campaign", id: campaign, label: campaignName.get(campaign) ?? campaign };
}
