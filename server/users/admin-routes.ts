// The operator's side of the console (admin API, bearer ADMIN_TOKEN; `bun run cli user …`): invitation
// and setup links for any account, and password reset links when no SMTP server is configured.
import { Elysia } from "elysia";
import { operation } from "../openapi/operation";
import { notFound } from "../errors";
import { Envelope } from "../http/envelope";
import { requireAdminBearer } from "../http/bearer";
import { ADMIN_PREFIX } from "../http/api-prefix";
import type { Postgres } from "../storage/postgres/client";
import { getAccountOrThrow } from "../accounts/read";
import * as m from "./model";
import { createInvitation } from "./invitations";
import { createResetLink } from "./resets";

export function usersAdminRoutes(deps: { pg: Postgres; baseUrl: string; adminToken?: string }) {
  return (
    new Elysia({ prefix: ADMIN_PREFIX })
      .onTransform(({ request }) => requireAdminBearer(deps.adminToken, request.headers.get("authorization")))
      // An invitation link (or, without email, a setup link whose opener chooses the email).
      .post(
        "/accounts/:id/invitations",
        async ({ params, body }) => {
          await getAccountOrThrow(deps.pg, params.id);
          const { invitation, url } = await createInvitation(deps.pg, deps.baseUrl, {
            accountId: params.id,
            email: body.email ?? null,
            role: body.role,
            invitedBy: null,
          });
          return new Envelope({ ...invitation, invitation_url: url }, 201);
        },
        {
          params: m.IdParams,
          body: m.AdminInviteBody,
          detail: operation({
            id: "createInvitation",
            tag: "Members",
            summary: "Create a console invitation or setup link",
            description:
              "With `email`, an invitation for that person; without, a setup link whose opener chooses the email. The link works once.",
            responses: { 201: { description: "The invitation and its link", data: m.AdminInvitation } },
          }),
        },
      )
      .post(
        "/users/password-reset",
        async ({ body }) => {
          const link = await createResetLink(deps.pg, deps.baseUrl, body.email);
          if (!link) throw notFound("User");
          return new Envelope({ email: link.email, reset_url: link.url, expires_at: link.expires_at }, 201);
        },
        {
          body: m.ResetRequestBody,
          detail: operation({
            id: "createPasswordResetLink",
            tag: "Members",
            summary: "Create a password reset link for a console user",
            description: "For installs without an SMTP server (`bun run cli user reset-password`). 404 for an unknown email.",
            responses: { 201: { description: "The reset link", data: m.AdminResetLink } },
          }),
        },
      )
  );
}
