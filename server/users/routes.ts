// The console's people routes under /console/api (session cookie, never an API key): sign-in, sign-up,
// invitations, password reset, the signed-in user's sessions and password, and the team.
import { Elysia } from "elysia";
import type { UsersFeatureDeps } from "./feature";
import type { Mailer } from "../mail/mailer";
import { Envelope } from "../http/envelope";
import { clientAddress } from "../http/request-context";
import { checkSameOrigin } from "../http/same-origin";
import { CONSOLE_API_PREFIX } from "../http/api-prefix";
import { PASSWORD_MIN_LENGTH } from "./passwords";
import * as m from "./model";
import * as users from "./service";
import * as team from "./team";
import * as invitations from "./invitations";
import * as resets from "./resets";
import type { UsersDeps } from "./service";
import type { Principal } from "../accounts/principal";

export function usersRoutes(deps: UsersFeatureDeps & { mailer: Mailer | null }) {
  const ctx: UsersDeps = {
    pg: deps.pg,
    kv: deps.kv,
    sessions: deps.sessions,
    mailer: deps.mailer,
    baseUrl: deps.config.baseUrl,
    signupMode: deps.config.signupMode,
    logger: deps.logger,
  };
  const origins = [new URL(deps.config.baseUrl).origin];
  const client = (request: Request, server: Parameters<typeof clientAddress>[1]): m.ClientInfo => ({
    ip: clientAddress(request, server, deps.config.trustProxy),
    userAgent: request.headers.get("user-agent"),
  });
  const signedIn = (set: { headers: Record<string, unknown> }, result: users.SignedIn, status = 200) => {
    set.headers["set-cookie"] = result.cookie;
    return new Envelope(result.session, status);
  };
  const actor = (account: Principal["account"], session: NonNullable<Principal["session"]>): team.Actor => ({
    accountId: account.id,
    accountName: account.name,
    session,
  });

  /** Whether the request carries the cookie of a live session (same origin only: others learn nothing). */
  const hasLiveSession = async (request: Request) => {
    const cookies = request.headers.get("cookie");
    const token = cookies ? new Bun.CookieMap(cookies).get(deps.sessions.cookieName) : null;
    if (!token) return false;
    try {
      checkSameOrigin(request, origins);
    } catch {
      return false;
    }
    return !!(await deps.sessions.resolve(token))?.session;
  };

  const publicRoutes = new Elysia({ prefix: `${CONSOLE_API_PREFIX}/auth` })
    // No session yet, so no token to check: the Origin alone keeps other sites from signing a
    // visitor in to an account of theirs (login CSRF) or spending the visitor's attempts.
    .onTransform(({ request }) => {
      if (request.method !== "GET") checkSameOrigin(request, origins);
    })
    // signed_in lets the console start without asking GET /session for a 401 (which browsers log as an error).
    .get("/config", async ({ request }) => ({
      signup_mode: deps.config.signupMode,
      password_reset: deps.mailer ? "email" : "operator",
      password_min_length: PASSWORD_MIN_LENGTH,
      signed_in: await hasLiveSession(request),
    }))
    .post("/sign-in", async ({ body, request, server, set }) => signedIn(set, await users.signIn(ctx, body, client(request, server))), {
      body: m.SignInBody,
    })
    .post(
      "/sign-up",
      async ({ body, request, server, set }) => signedIn(set, await users.signUp(ctx, body, client(request, server)), 201),
      {
        body: m.SignUpBody,
      },
    )
    .post("/invitation", ({ body }) => invitations.previewInvitation(deps.pg, body.token), { body: m.InvitationTokenBody })
    .post(
      "/accept-invitation",
      async ({ body, request, server, set }) => signedIn(set, await invitations.acceptInvitation(ctx, body, client(request, server))),
      { body: m.AcceptInvitationBody },
    )
    .post(
      "/password-reset",
      async ({ body, request, server }) => new Envelope(await resets.requestPasswordReset(ctx, body.email, client(request, server)), 202),
      {
        body: m.ResetRequestBody,
      },
    )
    .post("/password-reset/confirm", ({ body }) => resets.confirmPasswordReset(ctx, body.token, body.password), {
      body: m.ResetConfirmBody,
    });

  const sessionRoutes = new Elysia({ prefix: CONSOLE_API_PREFIX })
    .use(deps.auth)
    .get(
      "/session",
      ({ session, account }) =>
        users.describeSession(deps.pg, {
          userId: session.userId,
          email: session.email,
          accountId: account.id,
          csrfToken: session.csrfToken,
        }),
      { session: "account:read" },
    )
    .post(
      "/session/sign-out",
      async ({ session, set }) => {
        await users.endSession(ctx, session, session.id);
        set.headers["set-cookie"] = deps.sessions.clearCookie();
        return { message: "Signed out" };
      },
      { session: "account:read" },
    )
    .post("/session/account", ({ session, body }) => users.switchAccount(ctx, session, body.account_id), {
      session: "account:read",
      body: m.SwitchAccountBody,
    })
    .post("/session/password", ({ session, body }) => users.changePassword(ctx, session, body), {
      session: "account:read",
      body: m.ChangePasswordBody,
    })
    .get("/sessions", ({ session }) => users.listSessions(ctx, session), { session: "account:read" })
    .delete("/sessions/others", ({ session }) => users.endOtherSessions(ctx, session), { session: "account:read" })
    .delete("/sessions/:id", ({ session, params }) => users.endSession(ctx, session, params.id), {
      session: "account:read",
      params: m.IdParams,
    })
    .get("/team", ({ account, session }) => team.listTeam(ctx, actor(account, session)), { session: "team:read" })
    .post(
      "/team/invitations",
      async ({ account, session, body }) => new Envelope(await team.inviteMember(ctx, actor(account, session), body), 201),
      {
        session: "team:manage",
        body: m.InviteBody,
      },
    )
    .delete("/team/invitations/:id", ({ account, session, params }) => team.revokeInvitation(ctx, actor(account, session), params.id), {
      session: "team:manage",
      params: m.IdParams,
    })
    .patch(
      "/team/members/:id",
      ({ account, session, params, body }) => team.changeRole(ctx, actor(account, session), params.id, body.role),
      {
        session: "team:manage",
        params: m.IdParams,
        body: m.RoleBody,
      },
    )
    .delete("/team/members/:id", ({ account, session, params }) => team.removeMember(ctx, actor(account, session), params.id), {
      session: "team:manage",
      params: m.IdParams,
    });

  return new Elysia({ name: "users" }).use(publicRoutes).use(sessionRoutes);
}
