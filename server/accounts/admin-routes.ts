// Admin API (/admin/v1, bearer ADMIN_TOKEN): accounts, API keys, team members. 404 when ADMIN_TOKEN is unset.
import { Elysia } from "elysia";
import { AppError } from "../errors";
import { Envelope } from "../http/envelope";
import { bearerMatches } from "../http/bearer";
import { ADMIN_PREFIX, isUnder, pathOf } from "../http/api-prefix";
import type { Postgres } from "../storage/postgres/client";
import type { CachedKeyResolver } from "./api-keys";
import * as m from "./model";
import * as service from "./service";

function checkBearer(adminToken: string | undefined, header: string | null) {
  if (!adminToken) throw new AppError("NOT_FOUND", "Route not found");
  if (!bearerMatches(header, adminToken)) throw new AppError("UNAUTHORIZED", "Missing or invalid admin bearer token");
}

export function adminRoutes(deps: { pg: Postgres; keys: CachedKeyResolver; adminToken?: string }) {
  const { pg, keys } = deps;
  // A fresh object per route: Elysia merges macro details into it in place.
  const detail = () => ({ tags: ["Admin"], security: [{ adminToken: [] }] });
  return (
    new Elysia({ prefix: ADMIN_PREFIX })
      // Before the body is read: without ADMIN_TOKEN the admin API does not exist (404), and without the
      // bearer it is 401, whatever the body holds.
      .onRequest(({ request }) => {
        if (isUnder(pathOf(request.url), ADMIN_PREFIX)) checkBearer(deps.adminToken, request.headers.get("authorization"));
      })
      // And on every admin route itself, whatever path led to it (the check above goes by the path).
      .onTransform(({ request }) => checkBearer(deps.adminToken, request.headers.get("authorization")))
      .post("/accounts", async ({ body }) => new Envelope(await service.createAccount(pg, body), 201), {
        body: m.CreateAccountBody,
        detail: detail(),
      })
      .get("/accounts/:id", async ({ params }) => service.toAccountJson(await service.getAccountOrThrow(pg, params.id)), {
        params: m.IdParams,
        detail: detail(),
      })
      .patch("/accounts/:id", ({ params, body }) => service.updateAccount(pg, keys, params.id, body), {
        params: m.IdParams,
        body: m.UpdateAccountBody,
        detail: detail(),
      })
      .post("/accounts/:id/keys", async ({ params, body }) => new Envelope(await service.createKey(pg, params.id, body), 201), {
        params: m.IdParams,
        body: m.CreateKeyBody,
        detail: detail(),
      })
      .get("/accounts/:id/keys", ({ params }) => service.listKeys(pg, params.id), { params: m.IdParams, detail: detail() })
      .delete("/accounts/:id/keys/:key_id", ({ params }) => service.revokeKey(pg, keys, params.id, params.key_id), {
        params: m.KeyParams,
        detail: detail(),
      })
      .post("/accounts/:id/members", async ({ params, body }) => new Envelope(await service.addMember(pg, params.id, body), 201), {
        params: m.IdParams,
        body: m.AddMemberBody,
        detail: detail(),
      })
      .delete("/accounts/:id/members/:member_id", ({ params }) => service.removeMember(pg, params.id, params.member_id), {
        params: m.MemberParams,
        detail: detail(),
      })
  );
}
