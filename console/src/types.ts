// Wire types of the responses the console reads, taken from the server's own serializers (type-only).
import type { LinkJson } from "../../server/links/model";
import type { describeSession, listSessions } from "../../server/users/service";
import type { toInvitationJson } from "../../server/users/invitations";
import type { listTeam } from "../../server/users/team";
import type { getAccountOverview } from "../../server/accounts/overview";
import type { toKeyJson } from "../../server/accounts/service";
import type { toDeliveryJson, toEndpointJson } from "../../server/webhooks/model";
import type { Permission } from "../../server/roles";

type Data<F extends (...args: any[]) => any> = Awaited<ReturnType<F>>;

export type Link = LinkJson;
export type DeletedLink = Link & { deleted_at: string; restorable_until: string };
export type Session = Data<typeof describeSession>;
export type SessionItem = Data<typeof listSessions>[number];
export type Team = Data<typeof listTeam>;
export type Member = Team["members"][number];
export type Invitation = ReturnType<typeof toInvitationJson>;
export type AccountOverview = Data<typeof getAccountOverview>;
export type ApiKey = ReturnType<typeof toKeyJson>;
export type NewApiKey = ApiKey & { key: string };
export type Webhook = ReturnType<typeof toEndpointJson>;
export type NewWebhook = Webhook & { secret: string };
export type Delivery = ReturnType<typeof toDeliveryJson>;
export type { Permission };

export interface Domain {
  id: string;
  name: string;
  verified: boolean;
  verified_at: string | null;
  verification: { type: string; name: string; value: string };
  created_at: string;
}

export interface Campaign {
  id: string;
  name: string;
  description: string | null;
  created_at: string;
}

export interface AuthConfig {
  signup_mode: "open" | "invite" | "closed";
  password_reset: "email" | "operator";
  password_min_length: number;
}

export interface InvitationPreview {
  account_name: string;
  role: string;
  email: string | null;
  is_setup: boolean;
  user_exists: boolean;
  expires_at: string;
}

export interface LinkStats {
  total_clicks: number;
  unique_visitors: number;
  human_clicks: number;
  bot_clicks: number;
  last_accessed_at: string | null;
}

export interface JourneySummary {
  total_visitors: number;
  total_sessions: number;
  total_events: number;
  avg_session_duration_seconds: number;
  top_pages: { url: string; count: number }[];
  top_events: { name: string; count: number }[];
}

export interface JourneySession {
  session_id: string;
  visitor_id: string;
  started_at: string;
  ended_at: string;
  duration_seconds: number;
  event_count: number;
  page_views: number;
  entry_page: string;
  exit_page: string;
  converted: boolean;
  device_type: string | null;
  country_code: string | null;
}

export interface JourneyEvent {
  id: string;
  event_type: string;
  event_name: string | null;
  page_url: string;
  timestamp: string;
  revenue_cents: number | null;
  currency: string | null;
}
