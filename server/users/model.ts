// Wire schemas of the console's session-only routes: sign-in, invitations, passwords, sessions, team.
import { t } from "elysia";
import { ROLES } from "../roles";
import { PASSWORD_MAX_LENGTH } from "./passwords";

const Email = t.String({ format: "email", maxLength: 320 });
// Length is checked by the password policy, which names the rule; this only caps what is read.
const Password = t.String({ maxLength: PASSWORD_MAX_LENGTH * 4 });
const Token = t.String({ minLength: 1, maxLength: 100 });
export const RoleSchema = t.Union(ROLES.map((r) => t.Literal(r)));

export const SignInBody = t.Object(
  { email: Email, password: t.String({ minLength: 1, maxLength: 1000 }) },
  { additionalProperties: false },
);
export const SignUpBody = t.Object(
  { email: Email, password: Password, account_name: t.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);
export const InvitationTokenBody = t.Object({ token: Token }, { additionalProperties: false });
export const AcceptInvitationBody = t.Object(
  { token: Token, password: Password, email: t.Optional(Email) },
  { additionalProperties: false },
);
export const ResetRequestBody = t.Object({ email: Email }, { additionalProperties: false });
export const ResetConfirmBody = t.Object({ token: Token, password: Password }, { additionalProperties: false });
export const ChangePasswordBody = t.Object(
  { current_password: t.String({ minLength: 1, maxLength: 1000 }), new_password: Password },
  { additionalProperties: false },
);
export const SwitchAccountBody = t.Object({ account_id: t.String({ format: "uuid" }) }, { additionalProperties: false });
export const InviteBody = t.Object({ email: Email, role: RoleSchema }, { additionalProperties: false });
export const AdminInviteBody = t.Object({ email: t.Optional(Email), role: RoleSchema }, { additionalProperties: false });
export const RoleBody = t.Object({ role: RoleSchema }, { additionalProperties: false });
export const IdParams = t.Object({ id: t.String({ format: "uuid" }) });

export type SignInInput = typeof SignInBody.static;
export type SignUpInput = typeof SignUpBody.static;
export type AcceptInvitationInput = typeof AcceptInvitationBody.static;

/** Where a request came from, for the session list and the sign-in throttle. */
export interface ClientInfo {
  ip: string;
  userAgent: string | null;
}

const Time = t.String({ format: "date-time" });
/** An invitation (admin API answer, with its one-time link). */
export const AdminInvitation = t.Object(
  {
    id: t.String({ format: "uuid" }),
    email: t.Union([t.String(), t.Null()], { description: "null for a setup link: its opener chooses the email" }),
    role: RoleSchema,
    created_at: Time,
    expires_at: Time,
    invitation_url: t.String({ description: "The one-time link to the console's invitation or setup page" }),
  },
  { $id: "AdminInvitation", additionalProperties: false },
);
/** A password reset link made by an operator (admin API). */
export const AdminResetLink = t.Object(
  { email: t.String(), reset_url: t.String({ description: "The one-time link to the console's reset page" }), expires_at: Time },
  { $id: "AdminResetLink", additionalProperties: false },
);
