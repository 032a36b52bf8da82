// API keys: create with a name, scopes (presets or one by one) and an IP allowlist; the key is shown
// once with a copy button; the list shows prefix, scopes, created and last used; revoke is immediate.
import { useState } from "preact/hooks";
import { ApiError, CONSOLE, del, get, post } from "../api";
import { fmtDateTime, fmtNumber, fmtRelative } from "../format";
import type { AccountOverview, ApiKey, NewApiKey } from "../types";
import { useAsync, useSubmit } from "../ui/async";
import { Alert, CopyButton, Empty, Field, FormCard, LoadedTable, Loading, NotAllowed, PageHeader, Status } from "../ui/parts";
import { useSession } from "../session";
import { TrackerSnippet } from "./tracker-snippet";

const SCOPES = [
  ["links:read", "List and get links"],
  ["links:write", "Create and update links"],
  ["links:delete", "Delete links"],
  ["analytics:read", "Click analytics"],
  ["domains:read", "List domains"],
  ["domains:write", "Add and verify domains"],
  ["webhooks:read", "List webhooks and deliveries"],
  ["webhooks:write", "Manage webhooks"],
  ["conversions:read", "Conversion reports"],
  ["journey:read", "Journey sessions and events"],
  ["journey:write", "Send journey events (the tracker)"],
] as const;

const PRESETS: [string, string[]][] = [
  ["Tracker: journey:write only", ["journey:write"]],
  ["Read-only dashboards", ["analytics:read", "journey:read", "conversions:read", "links:read"]],
  ["Full access", SCOPES.map(([s]) => s)],
];

export function KeysPage() {
  const { can, session } = useSession();
  // Keys are for owners and admins (keys:manage): others get a sentence, not a form that can only fail with 403.
  if (!can("keys:manage"))
    return (
      <>
        <PageHeader title="API keys" />
        <NotAllowed role={session.role} what="create or revoke API keys" />
        <p class="muted" id="keys-ask">
          Ask an owner or an admin of this account for a key, or for the admin role.
        </p>
      </>
    );
  return <ManageKeys />;
}

function ManageKeys() {
  const keys = useAsync(() => get<ApiKey[]>(`${CONSOLE}/keys`), []);
  const account = useAsync(() => get<AccountOverview>(`${CONSOLE}/account`), []);
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [scopes, setScopes] = useState<string[]>([]);
  const [revoked, setRevoked] = useState("");
  const create = useSubmit(async (form: HTMLFormElement) => {
    // A key without scopes can do nothing: said here rather than sent to be refused.
    if (scopes.length === 0)
      throw new ApiError(0, "FORM", "Choose at least one scope.", { fields: [{ field: "body.scopes", message: "choose at least one" }] });
    const data = new FormData(form);
    const allowed = String(data.get("allowed_ips") ?? "")
      .split(/[\s,]+/)
      .filter(Boolean);
    const key = await post<NewApiKey>(`${CONSOLE}/keys`, { name: data.get("name"), scopes, allowed_ips: allowed });
    setCreated(key);
    form.reset();
    setScopes([]);
    keys.reload();
    account.reload();
  });
  const revoke = useSubmit(async (k: ApiKey) => {
    if (!confirm(`Revoke ${k.name}? Requests with it are refused at once.`)) return;
    await del(`${CONSOLE}/keys/${k.id}`);
    setRevoked(`${k.name} revoked`);
    keys.reload();
    account.reload();
  });
  const usage = account.data?.usage;
  const err = create.error?.fields ?? {};

  return (
    <>
      <PageHeader title="API keys" />
      {usage && (
        <p class="muted">
          {fmtNumber(usage.api_keys)} active key{usage.api_keys === 1 ? "" : "s"}
          {usage.api_key_limit === null
            ? `; the ${account.data!.account.tier} tier has no limit.`
            : ` of ${fmtNumber(usage.api_key_limit)} on the ${account.data!.account.tier} tier.`}
        </p>
      )}
      {created && (
        <div class="card new-secret" role="region" aria-labelledby="new-key">
          <h2 id="new-key">Your new key “{created.name}”</h2>
          <p>Copy it now: it is shown only this once.</p>
          <p class="secret">
            <code id="new-key-value">{created.key}</code> <CopyButton text={created.key} label="Copy key" />
          </p>
          {/* The snippet goes into a public page, where anyone can read the key: only a journey:write-only key belongs there. */}
          {created.scopes.length === 1 && created.scopes[0] === "journey:write" ? (
            <>
              <h3>Put the tracker on your site</h3>
              <TrackerSnippet trackerKey={created.key} />
            </>
          ) : (
            created.scopes.includes("journey:write") && (
              <p class="muted" id="tracker-key-warning">
                Do not put this key in a web page: anyone who reads the page could use its other scopes. For the tracker, create a key with
                journey:write only.
              </p>
            )
          )}
          <button type="button" class="secondary" onClick={() => setCreated(null)}>
            I have copied it
          </button>
        </div>
      )}
      <FormCard id="create-key" title="Create a key" action={create}>
        <Field label="Name" name="name" required maxLength={200} error={err.name} hint="Where it is used, e.g. “marketing site tracker”." />
        <div class="presets" role="group" aria-label="Presets">
          {PRESETS.map(([label, list]) => (
            <button
              type="button"
              class="secondary"
              aria-pressed={scopes.length === list.length && list.every((s) => scopes.includes(s))}
              onClick={() => setScopes(list)}
            >
              {label}
            </button>
          ))}
        </div>
        <fieldset class="scopes" aria-describedby={err.scopes ? "scopes-error" : undefined}>
          <legend>Scopes</legend>
          {SCOPES.map(([s, label]) => (
            <label class="check">
              <input
                type="checkbox"
                name="scope"
                value={s}
                checked={scopes.includes(s)}
                onChange={(e) => setScopes((e.target as HTMLInputElement).checked ? [...scopes, s] : scopes.filter((x) => x !== s))}
              />{" "}
              <code>{s}</code> <span class="muted">{label}</span>
            </label>
          ))}
          {err.scopes && (
            <small id="scopes-error" class="field-error">
              Choose at least one scope.
            </small>
          )}
        </fieldset>
        <div class="field">
          <label for="allowed-ips">IP allowlist (optional)</label>
          <textarea id="allowed-ips" name="allowed_ips" rows={2} aria-describedby="allowed-ips-hint" placeholder="203.0.113.0/24" />
          <small id="allowed-ips-hint" class="hint">
            Addresses or CIDR ranges, IPv4 or IPv6, one per line. Empty: any address.
          </small>
          {Object.entries(err)
            .filter(([f]) => f.startsWith("allowed_ips"))
            .map(([, m]) => (
              <small class="field-error">{m}</small>
            ))}
        </div>
        <button type="submit" disabled={create.busy}>
          Create key
        </button>
      </FormCard>
      <section aria-labelledby="key-list">
        <h2 id="key-list">Keys</h2>
        <Alert error={revoke.error} />
        <Status>{revoked}</Status>
        <LoadedTable
          value={keys}
          what="Loading keys"
          empty={<p>No keys yet. A tracker needs one with journey:write only.</p>}
          id="keys"
          columns={["Name", "Prefix", "Scopes", "Created", "Last used"]}
          actions
          row={(k) => (
            <tr class={k.revoked_at ? "revoked" : ""}>
              <td data-label="Name">{k.name}</td>
              <td data-label="Prefix">
                <code>{k.prefix}…</code>
              </td>
              <td data-label="Scopes">
                {k.scopes.map((s) => (
                  <span class="tag">{s}</span>
                ))}
                {k.allowed_ips.length > 0 && <div class="muted">Only from {k.allowed_ips.join(", ")}</div>}
              </td>
              <td data-label="Created">{fmtDateTime(k.created_at)}</td>
              <td data-label="Last used">{fmtRelative(k.last_used_at)}</td>
              <td>
                {k.revoked_at ? (
                  <span class="badge">Revoked {fmtRelative(k.revoked_at)}</span>
                ) : (
                  <button type="button" class="danger" onClick={() => revoke.submit(k)} disabled={revoke.busy}>
                    Revoke <span class="sr-only">{k.name}</span>
                  </button>
                )}
              </td>
            </tr>
          )}
        />
      </section>
    </>
  );
}
