// Admin API (/admin/v1, bearer ADMIN_TOKEN): accounts, API keys, team members. 404 when ADMIN_TOKEN is unset.
import { Elysia, t } from "elysia";
import { operation } from "../openapi/operation";
import { Envelope } from "../http/envelope";
import { requireAdminBearer } from "../http/bearer";
import { ADMIN_PREFIX, isUnder, pathOf } from "../http/api-prefix";
import type { Postgres } from "../storage/postgres/client";
import type { CachedKeyResolver } from "./api-keys";
import * as m from "./model";
import * as service from "./service";

export function adminRoutes(deps: { pg: Postgres; keys: CachedKeyResolver; adminToken?: string }) {
  const { pg, keys } = deps;
  return (
    new Elysia({ prefix: ADMIN_PREFIX })
      // Before the body is read: without ADMIN_TOKEN the admin API does not exist (404), and without the
      // bearer it is 401, whatever the body holds.
      .onRequest(({ request }) => {
        if (isUnder(pathOf(request.url), ADMIN_PREFIX)) requireAdminBearer(deps.adminToken, request.headers.get("authorization"));
      })
      // And on every admin route itself, whatever path led to it (the check above goes by the path).
      .onTransform(({ request }) => requireAdminBearer(deps.adminToken, request.headers.get("authorization")))
      .post("/accounts", async ({ body }) => new Envelope(await service.createAccount(pg, body), 201), {
        body: m.CreateAccountBody,
        detail: operation({
          id: "createAccount",
          tag: "Accounts",
          summary: "Create an account",
          responses: { 201: { description: "The account", data: m.Account } },
        }),
      })
      .get("/accounts/:id", async ({ params }) => service.getAccount(pg, params.id), {
        params: m.IdParams,
        detail: operation({
          id: "getAccount",
          tag: "Accounts",
          summary: "Get an account",
          responses: { 200: { description: "The account", data: m.Account } },
        }),
      })
      .patch("/accounts/:id", ({ params, body }) => service.updateAccount(pg, keys, params.id, body), {
        params: m.IdParams,
        body: m.UpdateAccountBody,
        detail: operation({
          id: "updateAccount",
          tag: "Accounts",
          summary: "Change an account's tier or limit overrides",
          description: "A null override clears it. Emits subscription.upgraded / subscription.downgraded.",
          responses: { 200: { description: "The account", data: m.Account } },
        }),
      })
      .post("/accounts/:id/keys", async ({ params, body }) => new Envelope(await service.createKey(pg, params.id, body), 201), {
        params: m.IdParams,
        body: m.CreateKeyBody,
        detail: operation({
          id: "createApiKey",
          tag: "API keys",
          summary: "Create an API key",
          description: "`allowed_ips` takes addresses and CIDR ranges (IPv4 and IPv6). Per-tier key quotas apply.",
          responses: { 201: { description: "The key record and the key itself, shown only here", data: m.CreatedApiKey } },
          errors: ["QUOTA_EXCEEDED"],
        }),
      })
      .get("/accounts/:id/keys", ({ params }) => service.listKeys(pg, params.id), {
        params: m.IdParams,
        detail: operation({
          id: "listApiKeys",
          tag: "API keys",
          summary: "List an account's API keys",
          responses: { 200: { description: "Key records (never the keys)", data: t.Array(m.ApiKeyRecord) } },
        }),
      })
      .delete("/accounts/:id/keys/:key_id", ({ params }) => service.revokeKey(pg, keys, params.id, params.key_id), {
        params: m.KeyParams,
        detail: operation({
          id: "revokeApiKey",
          tag: "API keys",
          summary: "Revoke an API key",
          description: "Takes effect at once on every instance; revoking twice answers the same record.",
          responses: { 200: { description: "The revoked key record", data: m.ApiKeyRecord } },
        }),
      })
      .post("/accounts/:id/members", async ({ params, body }) => new Envelope(await service.addMember(pg, params.id, body), 201), {
        params: m.IdParams,
        body: m.AddMemberBody,
        detail: operation({
          id: "addMember",
          tag: "Members",
          summary: "Add a team member",
          responses: { 201: { description: "The member", data: m.Member } },
          errors: ["CONFLICT"],
        }),
      })
      .delete("/accounts/:id/members/:member_id", ({ params }) => service.removeMember(pg, params.id, params.member_id), {
        params: m.MemberParams,
        detail: operation({
          id: "removeMember",
          tag: "Members",
          summary: "Remove a team member",
          responses: { 200: { description: "The removed member", data: m.Member } },
        }),
      })
  );
}
