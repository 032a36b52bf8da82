// One endpoint: send a test, disable or re-enable (after an automatic disable), change its events,
// delete it; and its 50 latest deliveries, each with the request sent and the response received.
import { useState } from "preact/hooks";
import { api, ok } from "../../api";
import { fmtDateTime, fmtNumber } from "../../format";
import { navigate } from "../../router";
import { useSession } from "../../session";
import type { Delivery, Webhook } from "../../types";
import { useAsync, useSubmit } from "../../ui/async";
import { Alert, Failed, LoadedList, Loading, PageHeader, Status } from "../../ui/parts";
import { EventPicker, type WebhookEvent } from "./events";

export function WebhookPage({ id }: { id: string }) {
  const { can } = useSession();
  const path = { params: { path: { id } } };
  const hook = useAsync(() => ok(api.GET("/webhooks/{id}", path)), [id]);
  const deliveries = useAsync(() => ok(api.GET("/webhooks/{id}/deliveries", path)), [id]);
  const [events, setEvents] = useState<WebhookEvent[] | null>(null);
  const [note, setNote] = useState("");
  const act = useSubmit(async (what: "test" | "enable" | "disable" | "events" | "delete") => {
    if (what === "test") {
      const d = await ok(api.POST("/webhooks/{id}/test", path));
      setNote(`Test sent: ${d.status}${d.http_status ? ` (HTTP ${d.http_status})` : ""}`);
    } else if (what === "delete") {
      if (!confirm("Delete this endpoint and its delivery history?")) return;
      await ok(api.DELETE("/webhooks/{id}", path));
      return navigate("/webhooks");
    } else if (what === "events") {
      await ok(api.PATCH("/webhooks/{id}", { ...path, body: { events: events ?? undefined } }));
      setNote("Events saved");
      setEvents(null);
    } else {
      await ok(api.PATCH("/webhooks/{id}", { ...path, body: { is_active: what === "enable" } }));
      setNote(what === "enable" ? "Endpoint enabled" : "Endpoint disabled");
    }
    hook.reload();
    deliveries.reload();
  });
  if (hook.state === "error") return <Failed error={hook.error} retry={hook.reload} page />;
  if (!hook.data) return <Loading what="Loading the endpoint" />;
  const h = hook.data;
  return (
    <>
      <PageHeader title="Webhook endpoint">
        {can("webhooks:write") && (
          <>
            <button type="button" onClick={() => act.submit("test")} disabled={act.busy || !h.is_active}>
              Send a test
            </button>
            <button type="button" class="secondary" onClick={() => act.submit(h.is_active ? "disable" : "enable")} disabled={act.busy}>
              {h.is_active ? "Disable" : "Re-enable"}
            </button>
            <button type="button" class="danger" onClick={() => act.submit("delete")} disabled={act.busy}>
              Delete
            </button>
          </>
        )}
      </PageHeader>
      <Alert error={act.error} />
      <Status>{note}</Status>
      <section class="card">
        <dl class="details">
          <dt>URL</dt>
          <dd class="clip">{h.url}</dd>
          <dt>Status</dt>
          <dd>
            {h.is_active ? "Active" : "Disabled"}
            {!h.is_active && h.consecutive_failures >= 10 && " after 10 failed deliveries in a row: fix the receiver, then re-enable"}
          </dd>
          <dt>Failures in a row</dt>
          <dd>{fmtNumber(h.consecutive_failures)}</dd>
          <dt>Events</dt>
          <dd>
            {h.events.map((e) => (
              <span class="tag">{e}</span>
            ))}{" "}
            {can("webhooks:write") && events === null && (
              <button type="button" class="link" onClick={() => setEvents(h.events)}>
                Change
              </button>
            )}
          </dd>
        </dl>
        {events !== null && (
          <form onSubmit={(e) => (e.preventDefault(), act.submit("events"))}>
            <EventPicker value={events} onChange={setEvents} error={act.error?.fields.events} />
            <button type="submit" disabled={act.busy}>
              Save events
            </button>
          </form>
        )}
      </section>
      <section aria-labelledby="deliveries">
        <div class="section-head">
          <h2 id="deliveries">Deliveries</h2>
          <button type="button" class="secondary" onClick={deliveries.reload}>
            Refresh
          </button>
        </div>
        <LoadedList
          value={deliveries}
          what="Loading deliveries"
          empty={<p>No deliveries yet. Send a test to see one.</p>}
          class="deliveries"
          id="delivery-list"
          item={(d) => (
            <li>
              <details>
                <summary>
                  <span class={d.status === "delivered" ? "badge ok" : d.status === "failed" ? "badge warn" : "badge"}>{d.status}</span>{" "}
                  <code>{d.event_type}</code> · attempt {d.attempt_number} of {d.max_attempts}
                  {d.http_status !== null && ` · HTTP ${d.http_status}`} · {fmtDateTime(d.created_at)}
                </summary>
                <h3>Request body</h3>
                <pre>{JSON.stringify(d.payload, null, 2)}</pre>
                <h3>Response</h3>
                <pre>{d.error_message ?? d.response_body ?? "—"}</pre>
                {d.next_retry_at && d.status === "retrying" && <p class="muted">Next attempt {fmtDateTime(d.next_retry_at)}</p>}
              </details>
            </li>
          )}
        />
      </section>
    </>
  );
}
