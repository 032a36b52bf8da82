// The users feature: the console's people routes, the operator's invitation and reset links in the
// admin API, and the hourly sweep of ended sessions. It makes its own mailer (only it sends email),
// closed when its job stops.
import { Elysia } from "elysia";
import type { Config } from "../config";
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { Logger } from "../http/logger";
import type { Kv } from "../storage/kv";
import type { Postgres } from "../storage/postgres/client";
import { createMailer } from "../mail/mailer";
import { periodicJob } from "../periodic-job";
import { usersAdminRoutes } from "./admin-routes";
import { deleteExpiredSessions } from "./repository";
import { usersRoutes } from "./routes";
import type { SessionStore } from "./sessions";

export interface UsersFeatureDeps {
  config: Pick<Config, "baseUrl" | "adminToken" | "signupMode" | "trustProxy" | "smtpUrl" | "mailFrom">;
  pg: Postgres;
  kv: Kv;
  sessions: SessionStore;
  logger: Logger;
  auth: Auth;
}

export const usersFeature: Feature<UsersFeatureDeps> = {
  name: "users",
  create: (deps) => {
    const mailer = createMailer(deps.config.smtpUrl, deps.config.mailFrom);
    return {
      routes: new Elysia()
        .use(usersAdminRoutes({ pg: deps.pg, baseUrl: deps.config.baseUrl, adminToken: deps.config.adminToken }))
        .use(usersRoutes({ ...deps, mailer })),
      // Sessions past their idle or absolute expiry are refused anyway; this keeps the table small.
      job: periodicJob({
        everyMs: 3_600_000,
        onError: (err) => deps.logger.error({ msg: "session sweep failed", error: String(err) }),
        run: () => deleteExpiredSessions(deps.pg.db, deps.sessions.idleSince()),
        finish: () => mailer?.close(),
      }),
    };
  },
};
