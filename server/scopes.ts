// The eleven API key permissions (docs/api.md "Accounts and API keys").
export const SCOPES = [
  "links:read",
  "links:write",
  "links:delete",
  "analytics:read",
  "domains:read",
  "domains:write",
  "webhooks:read",
  "webhooks:write",
  "conversions:read",
  "journey:read",
  "journey:write",
] as const;
export type Scope = (typeof SCOPES)[number];
export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);
