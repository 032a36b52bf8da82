// The permission table: what each team role may do, as API scopes (for the public API called with a
// console session) and console permissions (for the session-only routes). One table, read everywhere.
import { SCOPES, type Scope } from "./scopes";

export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (s: string): s is Role => (ROLES as readonly string[]).includes(s);

/** Console-only permissions: no API key can hold them, so a key can never mint keys or invite people. */
export const CONSOLE_PERMISSIONS = ["keys:manage", "team:manage", "owners:manage", "account:read", "team:read"] as const;
export type ConsolePermission = (typeof CONSOLE_PERMISSIONS)[number];
export type Permission = Scope | ConsolePermission;

const READ_SCOPES: Scope[] = ["links:read", "analytics:read", "domains:read", "webhooks:read", "conversions:read", "journey:read"];

export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  owner: [...SCOPES, "keys:manage", "team:manage", "owners:manage", "account:read", "team:read"],
  admin: [...SCOPES, "keys:manage", "team:manage", "account:read", "team:read"],
  member: [...READ_SCOPES, "links:write", "links:delete", "journey:write", "account:read", "team:read"],
  viewer: [...READ_SCOPES, "account:read", "team:read"],
};

export const roleHas = (role: Role, permission: Permission) => ROLE_PERMISSIONS[role].includes(permission);

/** The API scopes of a role, in the order of SCOPES. */
export const roleScopes = (role: Role): Scope[] => SCOPES.filter((s) => ROLE_PERMISSIONS[role].includes(s));
