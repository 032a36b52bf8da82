// Wire types of what the console reads. The public API's come from the types the typed client generates
// from the OpenAPI document; the session-only routes' from the server's own serializers (type-only).
import type { components } from "../../client/src/generated/schema";
import type { describeSession, listSessions } from "../../server/users/service";
import type { previewInvitation, toInvitationJson } from "../../server/users/invitations";
import type { listTeam } from "../../server/users/team";
import type { getAccountOverview } from "../../server/accounts/overview";
import type { toKeyJson } from "../../server/accounts/serialize";
import type { Permission } from "../../server/roles";
import type { Tier } from "../../server/tiers";

type Schemas = components["schemas"];
type Data<F extends (...args: any[]) => any> = Awaited<ReturnType<F>>;

// The public API (/public-api/v1).
export type Link = Schemas["Link"];
export type Rule = Link["rules"][number];
export type Variant = Link["variants"][number];
export type DeletedLink = Schemas["DeletedLink"];
export type LinkStatsGroup = Schemas["LinkStatsGroup"];
export type Domain = Schemas["Domain"];
export type Campaign = Schemas["Campaign"];
export type Share = Schemas["Share"];
export type Import = Schemas["Import"];
export type ImportedJourneyFigures = Schemas["ImportedJourneyFigures"];
export type ReportSubscription = Schemas["ReportSubscription"];
/** An alert of the API (named apart from the Alert component that shows errors). */
export type AlertRule = Schemas["Alert"];
export type Webhook = Schemas["WebhookEndpoint"];
export type NewWebhook = Schemas["CreatedWebhookEndpoint"];
export type Delivery = Schemas["WebhookDelivery"];
export type JourneySummary = Schemas["ComparableJourneySummary"];
export type JourneySession = Schemas["JourneySession"];
export type JourneyEvent = Schemas["JourneyEventItem"];

// The session-only routes (/console/api).
export type Session = Data<typeof describeSession>;
export type SessionItem = Data<typeof listSessions>[number];
export type Team = Data<typeof listTeam>;
export type Member = Team["members"][number];
export type Invitation = ReturnType<typeof toInvitationJson>;
export type InvitationPreview = Data<typeof previewInvitation>;
export type AccountOverview = Data<typeof getAccountOverview>;
export type ApiKey = ReturnType<typeof toKeyJson>;
export type NewApiKey = ApiKey & { key: string };
export type { Permission, Tier };

export interface AuthConfig {
  signup_mode: "open" | "invite" | "closed";
  password_reset: "email" | "operator";
  password_min_length: number;
  /** Whether the browser's cookie is a live session (the console asks for it only then). */
  signed_in: boolean;
}
