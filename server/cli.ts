// `bun run cli`: a thin client of the admin API (/admin/v1). Reads the server address and the admin
// token from --url / --token or SVC_URL / ADMIN_TOKEN.
import { parseArgs } from "node:util";
import { secretVariable } from "./config";

const HELP = `Usage: bun run cli <command> [options]

Commands:
  account create --name NAME --tier TIER [--journey-limit N] [--click-limit N]
  account get ID
  account tier ID TIER                     change the tier (emits subscription.upgraded/downgraded)
  account limits ID [--journey-limit N|none] [--click-limit N|none]
  key create ACCOUNT_ID --name NAME --scopes a,b,c [--allow-ip CIDR ...]
  key list ACCOUNT_ID
  key revoke ACCOUNT_ID KEY_ID
  member add ACCOUNT_ID --email EMAIL --role owner|admin|member|viewer
  member remove ACCOUNT_ID MEMBER_ID
  user invite ACCOUNT_ID --role ROLE [--email EMAIL]
                                           a console invitation link (without --email: a setup link
                                           whose opener chooses the email)
  user reset-password EMAIL                a one-time console password reset link (1 hour)

Options:
  --url URL       server origin (default $SVC_URL or http://localhost:3000)
  --token TOKEN   admin token (default $ADMIN_TOKEN)
  --help          this text

Tiers: free, basic, growth, pro, business, scale.
Scopes: links:read links:write links:delete analytics:read domains:read domains:write
        webhooks:read webhooks:write conversions:read journey:read journey:write (or "all").`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: "string" },
    token: { type: "string" },
    help: { type: "boolean" },
    name: { type: "string" },
    tier: { type: "string" },
    scopes: { type: "string" },
    "allow-ip": { type: "string", multiple: true },
    email: { type: "string" },
    role: { type: "string" },
    "journey-limit": { type: "string" },
    "click-limit": { type: "string" },
  },
});

if (values.help || positionals.length === 0) {
  console.log(HELP);
  process.exit(0);
}

const base = (values.url ?? Bun.env.SVC_URL ?? "http://localhost:3000").replace(/\/+$/, "");
let token = values.token;
try {
  token ??= secretVariable("ADMIN_TOKEN");
} catch (err) {
  fail(String((err as Error).message));
}
if (!token) fail("No admin token: pass --token or set ADMIN_TOKEN or ADMIN_TOKEN_FILE (the server's ADMIN_TOKEN).");

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

/** A limit flag: a whole number, or `none` to clear the override; anything else stops the CLI. */
function limit(v: string | undefined): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === "none") return null;
  if (!/^\d+$/.test(v)) fail(`A limit must be a whole number or "none", not "${v}".`);
  return Number(v);
}
const need = (v: string | undefined, what: string) => v ?? fail(`Missing ${what}. See --help.`);
const ALL_SCOPES =
  "links:read,links:write,links:delete,analytics:read,domains:read,domains:write,webhooks:read,webhooks:write,conversions:read,journey:read,journey:write";

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  }).catch((err) => fail(`Cannot reach ${base}: ${err.message}`));
  const json = (await res.json().catch(() => ({}))) as { success?: boolean; data?: unknown; error?: { message?: string } };
  if (!res.ok) fail(`${res.status} ${json.error?.message ?? res.statusText}`);
  console.log(JSON.stringify(json.data, null, 2));
}

const overrides = () => {
  const o: Record<string, number | null> = {};
  const j = limit(values["journey-limit"]);
  const c = limit(values["click-limit"]);
  if (j !== undefined) o.journey_events_per_month = j;
  if (c !== undefined) o.clicks_per_month = c;
  return o;
};

const [group, action, a, b] = positionals;
switch (`${group} ${action}`) {
  case "account create":
    await call("POST", "/accounts", { name: need(values.name, "--name"), tier: need(values.tier, "--tier"), limit_overrides: overrides() });
    break;
  case "account get":
    await call("GET", `/accounts/${need(a, "ID")}`);
    break;
  case "account tier":
    await call("PATCH", `/accounts/${need(a, "ID")}`, { tier: need(b, "TIER") });
    break;
  case "account limits":
    await call("PATCH", `/accounts/${need(a, "ID")}`, { limit_overrides: overrides() });
    break;
  case "key create": {
    const scopes = need(values.scopes, "--scopes");
    await call("POST", `/accounts/${need(a, "ACCOUNT_ID")}/keys`, {
      name: need(values.name, "--name"),
      scopes: (scopes === "all" ? ALL_SCOPES : scopes).split(","),
      allowed_ips: values["allow-ip"] ?? [],
    });
    break;
  }
  case "key list":
    await call("GET", `/accounts/${need(a, "ACCOUNT_ID")}/keys`);
    break;
  case "key revoke":
    await call("DELETE", `/accounts/${need(a, "ACCOUNT_ID")}/keys/${need(b, "KEY_ID")}`);
    break;
  case "member add":
    await call("POST", `/accounts/${need(a, "ACCOUNT_ID")}/members`, {
      email: need(values.email, "--email"),
      role: need(values.role, "--role"),
    });
    break;
  case "user invite":
    await call("POST", `/accounts/${need(a, "ACCOUNT_ID")}/invitations`, { role: need(values.role, "--role"), email: values.email });
    break;
  case "user reset-password":
    await call("POST", "/users/password-reset", { email: need(a, "EMAIL") });
    break;
  case "member remove":
    await call("DELETE", `/accounts/${need(a, "ACCOUNT_ID")}/members/${need(b, "MEMBER_ID")}`);
    break;
  default:
    fail(`Unknown command "${positionals.join(" ")}". See --help.`);
}
