// The links a report covers, resolved once per request for the click, journey and conversion reports
// alike: every click and event of the account, or the live links a link, tag, campaign or domain names.
// A deleted link (in the trash or purged) is no link here: its own reports answer 404 and the tag,
// campaign and domain scopes leave it out, while the account's totals keep its clicks
// (docs/api.md "Deleted links in reports").
import { notFound } from "../errors";
import type { DbOrTx } from "../storage/postgres/client";
import { findLinkFacts, findLiveLinkIdsWhere, isLiveTag, type LinkFacts, type LinkSelection } from "../links/read";
import { isAccountCampaign } from "../campaigns/read";
import { findAccountDomain } from "../domains/read";

export type { LinkSelection };

export interface ReportLinks {
  /** The links covered; undefined: the whole account, deleted links' clicks and events included. */
  linkIds?: string[];
  /** The link, when the selection names one. */
  link?: LinkFacts;
}

/** A report's scope: whose, which links, and its period (a date range or a rolling period, by report). */
export interface ReportScope<P> extends ReportLinks {
  accountId: string;
  period: P;
}

const lower = (id: string | undefined) => id?.toLowerCase();

/**
 * The links a selection covers together (their intersection); 404 for a link, tag, campaign or domain
 * the account does not have, whoever else has it, and for a deleted link.
 */
export async function resolveReportLinks(db: DbOrTx, accountId: string, selection: LinkSelection): Promise<ReportLinks> {
  const s: LinkSelection = {
    linkId: lower(selection.linkId),
    tag: selection.tag,
    campaignId: lower(selection.campaignId),
    domainId: lower(selection.domainId),
  };
  const given = Object.entries(s).filter(([, v]) => v !== undefined);
  if (given.length === 0) return {};
  const [link, tag, campaign, domain] = await Promise.all([
    s.linkId === undefined ? undefined : findLinkFacts(db, accountId, s.linkId),
    s.tag === undefined || isLiveTag(db, accountId, s.tag),
    s.campaignId === undefined || isAccountCampaign(db, accountId, s.campaignId),
    s.domainId === undefined || findAccountDomain(db, accountId, s.domainId),
  ]);
  if (link === null) throw notFound("Link");
  if (!tag) throw notFound("Tag");
  if (!campaign) throw notFound("Campaign");
  if (!domain) throw notFound("Domain");
  // A link alone (the console's link page, the per-link reports): the link found above is the whole list.
  if (given.length === 1 && link) return { linkIds: [link.id], link };
  return { linkIds: await findLiveLinkIdsWhere(db, accountId, s), ...(link ? { link } : {}) };
}

/** The scope of a report over `selection` in `period`, resolved once. */
export async function resolveReportScope<P>(db: DbOrTx, accountId: string, selection: LinkSelection, period: P): Promise<ReportScope<P>> {
  return { accountId, period, ...(await resolveReportLinks(db, accountId, selection)) };
}
