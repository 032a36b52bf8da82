// The console's API key and account routes (/console/api, session only): an API key can never mint,
// list or revoke keys. Same validation, quotas and events as the admin API's key routes.
import { Elysia } from "elysia";
import type { FeatureDeps } from "../app";
import { AppError } from "../errors";
import { Envelope } from "../http/envelope";
import { CONSOLE_API_PREFIX } from "../http/api-prefix";
import { ROLE_PERMISSIONS } from "../roles";
import * as m from "./model";
import * as service from "./service";
import { getAccountOverview } from "./overview";

export function accountConsoleRoutes(deps: FeatureDeps) {
  return new Elysia({ prefix: CONSOLE_API_PREFIX })
    .use(deps.auth)
    .get("/keys", ({ account }) => service.listKeys(deps.pg, account.id), { session: "keys:manage" })
    .post(
      "/keys",
      async ({ account, session, body }) => {
        // Nobody hands out more than their own role holds.
        const beyond = body.scopes.filter((s) => !ROLE_PERMISSIONS[session.role].includes(s));
        if (beyond.length) {
          throw new AppError("INSUFFICIENT_PERMISSIONS", `Your role (${session.role}) cannot grant ${beyond.join(", ")}`, {
            required: beyond[0],
          });
        }
        return new Envelope(await service.createKey(deps.pg, account.id, body), 201);
      },
      { session: "keys:manage", body: m.CreateKeyBody },
    )
    .delete("/keys/:id", ({ account, params }) => service.revokeKey(deps.pg, deps.keys, account.id, params.id), {
      session: "keys:manage",
      params: m.IdParams,
    })
    .get("/account", ({ account }) => getAccountOverview(deps, account), { session: "account:read" });
}
