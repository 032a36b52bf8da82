// Custom domains: add one, see the DNS TXT record to create, verify it, remove it.
import { useState } from "preact/hooks";
import { api, ok } from "../api";
import { fmtDateTime } from "../format";
import { useSession } from "../session";
import type { Domain } from "../types";
import { useAsync, useSubmit } from "../ui/async";
import { Alert, CopyButton, Field, LoadedList, Loading, NotAllowed, PageHeader, Status } from "../ui/parts";

export function DomainsPage() {
  const { can, session } = useSession();
  const domains = useAsync(() => ok(api.GET("/domains")), []);
  const [note, setNote] = useState("");
  // A verification that found no record: its reason stays beside the domain's DNS instructions, as a warning.
  const [failures, setFailures] = useState<Record<string, string>>({});
  const add = useSubmit(async (form: HTMLFormElement) => {
    const d = await ok(api.POST("/domains", { body: { name: String(new FormData(form).get("name") ?? "") } }));
    form.reset();
    setNote(`${d.name} added: create its TXT record, then verify`);
    domains.reload();
  });
  const act = useSubmit(async (d: Domain, what: "verify" | "delete") => {
    if (what === "verify") {
      const v = await ok(api.POST("/domains/{id}/verify", { params: { path: { id: d.id } } }));
      setFailures((f) => ({ ...f, [d.id]: v.verified ? "" : v.message }));
      setNote(v.verified ? `${d.name} is verified` : "");
    } else {
      if (!confirm(`Remove ${d.name}?`)) return;
      await ok(api.DELETE("/domains/{id}", { params: { path: { id: d.id } } }));
      setNote(`${d.name} removed`);
    }
    domains.reload();
  });
  return (
    <>
      <PageHeader title="Domains" />
      <p class="muted">
        Short links can live on your own domain: point it at this server, prove it is yours with a DNS TXT record, then pick it when
        creating a link.
      </p>
      {can("domains:write") ? (
        <form
          class="card inline-form"
          aria-labelledby="add-domain"
          onSubmit={(e) => (e.preventDefault(), add.submit(e.target as HTMLFormElement))}
        >
          <h2 id="add-domain" class="sr-only">
            Add a domain
          </h2>
          <Alert error={add.error} />
          <Field label="Domain name" name="name" required placeholder="go.example.com" error={add.error?.fields.name} />
          <button type="submit" disabled={add.busy}>
            Add domain
          </button>
        </form>
      ) : (
        <NotAllowed role={session.role} what="add domains" />
      )}
      <Alert error={act.error} />
      <Status>{note}</Status>
      <LoadedList
        value={domains}
        what="Loading domains"
        empty={<p>No custom domains. Links use this server's address.</p>}
        class="cards"
        item={(d) => (
          <li class="card">
            <h2>
              {d.name} <span class={d.verified ? "badge ok" : "badge warn"}>{d.verified ? "Verified" : "Not verified"}</span>
            </h2>
            {d.verified ? (
              <p class="muted">Verified {fmtDateTime(d.verified_at)}.</p>
            ) : (
              <>
                {failures[d.id] && (
                  <p class="verify-failed" role="alert" id={`verify-failed-${d.id}`}>
                    Not verified: {failures[d.id]}. DNS changes can take a few minutes to an hour to reach every resolver; check the record
                    below and try again.
                  </p>
                )}
                <p>Create this DNS record at your DNS provider, then verify:</p>
                <dl class="details">
                  <dt>Type</dt>
                  <dd>{d.verification.type}</dd>
                  <dt>Name</dt>
                  <dd>
                    <code>{d.verification.name}</code> <CopyButton text={d.verification.name} />
                  </dd>
                  <dt>Value</dt>
                  <dd>
                    <code>{d.verification.value}</code> <CopyButton text={d.verification.value} />
                  </dd>
                </dl>
              </>
            )}
            {can("domains:write") && (
              <div class="actions">
                {!d.verified && (
                  <button type="button" onClick={() => act.submit(d, "verify")} disabled={act.busy}>
                    Verify <span class="sr-only">{d.name}</span>
                  </button>
                )}
                <button type="button" class="danger" onClick={() => act.submit(d, "delete")} disabled={act.busy}>
                  Remove <span class="sr-only">{d.name}</span>
                </button>
              </div>
            )}
          </li>
        )}
      />
    </>
  );
}
