// Webhook endpoints: the list (active, failures), and a form to add one with the events to send; the
// signing secret is shown once.
import { useState } from "preact/hooks";
import { api, ok } from "../../api";
import { fmtDateTime, fmtNumber } from "../../format";
import { useSession } from "../../session";
import type { NewWebhook, Webhook } from "../../types";
import { useAsync, useSubmit } from "../../ui/async";
import { A, CopyButton, Field, FormCard, LoadedTable, Loading, NotAllowed, PageHeader } from "../../ui/parts";
import { EventPicker, type WebhookEvent } from "./events";

export function WebhooksPage() {
  const { can, session } = useSession();
  const hooks = useAsync(() => ok(api.GET("/webhooks")), []);
  const [created, setCreated] = useState<NewWebhook | null>(null);
  const [events, setEvents] = useState<WebhookEvent[]>([]);
  const create = useSubmit(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const description = String(data.get("description") ?? "") || undefined;
    setCreated(await ok(api.POST("/webhooks", { body: { url: String(data.get("url") ?? ""), events, description } })));
    form.reset();
    setEvents([]);
    hooks.reload();
  });
  const err = create.error?.fields ?? {};
  return (
    <>
      <PageHeader title="Webhooks" />
      {created && (
        <div class="card new-secret" role="region" aria-labelledby="new-secret">
          <h2 id="new-secret">Signing secret of {created.url}</h2>
          <p>Copy it now: it is shown only this once. Deliveries carry X-SVC-Signature (HMAC-SHA256 of the body with this secret).</p>
          <p class="secret">
            <code id="new-webhook-secret">{created.secret}</code> <CopyButton text={created.secret} label="Copy secret" />
          </p>
          <A to={`/webhooks/${created.id}`} class="button">
            Open the endpoint
          </A>
        </div>
      )}
      {can("webhooks:write") ? (
        <FormCard id="add-webhook" title="Add an endpoint" action={create}>
          <Field
            label="URL"
            name="url"
            type="url"
            required
            placeholder="https://example.com/hooks/svc"
            error={err.url}
            hint="HTTPS, reachable from this server."
          />
          <Field label="Description" name="description" maxLength={500} error={err.description} />
          <EventPicker value={events} onChange={setEvents} error={err.events} />
          <button type="submit" disabled={create.busy}>
            Add endpoint
          </button>
        </FormCard>
      ) : (
        <NotAllowed role={session.role} what="add webhooks" />
      )}
      <section aria-labelledby="webhook-list">
        <h2 id="webhook-list">Endpoints</h2>
        <LoadedTable
          value={hooks}
          what="Loading endpoints"
          empty={<p>No endpoints yet.</p>}
          columns={["URL", "Events", "Status", "Created"]}
          row={(h) => (
            <tr>
              <td data-label="URL" class="clip">
                <A to={`/webhooks/${h.id}`}>{h.url}</A>
                {h.description && <div class="muted">{h.description}</div>}
              </td>
              <td data-label="Events">{fmtNumber(h.events.length)} events</td>
              <td data-label="Status">
                <span class={h.is_active ? "badge ok" : "badge warn"}>{h.is_active ? "Active" : "Disabled"}</span>
                {h.consecutive_failures > 0 && <span class="badge warn">{fmtNumber(h.consecutive_failures)} failures in a row</span>}
              </td>
              <td data-label="Created">{fmtDateTime(h.created_at)}</td>
            </tr>
          )}
        />
      </section>
    </>
  );
}
