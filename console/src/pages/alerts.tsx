// Email reports and alerts (docs/notifications.md): subscribe addresses to the weekly and monthly
// report, set alerts on visitors and conversion rate, turn them off and on, delete them.
import { useState } from "preact/hooks";
import { api, ok } from "../api";
import { fmtDateTime } from "../format";
import { useSession } from "../session";
import type { AlertRule, ReportSubscription } from "../types";
import { useAsync, useSubmit } from "../ui/async";
import { Alert, Checks, Field, FormCard, LoadedTable, NotAllowed, PageHeader, Select, Status } from "../ui/parts";

type Kind = AlertRule["kind"];
type Frequency = "weekly" | "monthly";
const KIND_NAMES: Record<Kind, string> = {
  visitors_above: "More visitors than N in 5 minutes",
  visitors_below: "Fewer visitors than N in 12 hours",
  conversion_drop: "Conversion rate down by N% (24 hours against 7 days)",
};
const addresses = (text: string) => text.split(/[\s,;]+/).filter(Boolean);

export function AlertsPage() {
  const { can, session } = useSession();
  const writer = can("webhooks:write");
  const subs = useAsync(() => ok(api.GET("/report-subscriptions")), []);
  const rules = useAsync(() => ok(api.GET("/alerts")), []);
  const links = useAsync(() => ok(api.GET("/links", { params: { query: { per_page: 100 } } })), []);
  const [frequencies, setFrequencies] = useState<Frequency[]>(["weekly"]);
  const [kind, setKind] = useState<Kind>("visitors_above");
  const [note, setNote] = useState("");

  const subscribe = useSubmit(async (form: HTMLFormElement) => {
    const email = String(new FormData(form).get("email") ?? "").trim();
    await ok(
      api.POST("/report-subscriptions", {
        body: { email, weekly: frequencies.includes("weekly"), monthly: frequencies.includes("monthly") },
      }),
    );
    form.reset();
    setNote(`${email} subscribed`);
    subs.reload();
  });
  const unsubscribe = useSubmit(async (s: ReportSubscription) => {
    if (!confirm(`Stop the reports to ${s.email}?`)) return;
    await ok(api.DELETE("/report-subscriptions/{id}", { params: { path: { id: s.id } } }));
    setNote(`${s.email} unsubscribed`);
    subs.reload();
  });
  const create = useSubmit(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? "").trim();
    const link = text("link_id");
    await ok(
      api.POST("/alerts", {
        body: { kind, threshold: Number(text("threshold")), ...(link ? { link_id: link } : {}), recipients: addresses(text("recipients")) },
      }),
    );
    form.reset();
    setNote("Alert set");
    rules.reload();
  });
  const toggle = useSubmit(async (a: AlertRule) => {
    await ok(api.PATCH("/alerts/{id}", { params: { path: { id: a.id } }, body: { enabled: !a.enabled } }));
    setNote(a.enabled ? "Alert turned off" : "Alert turned on");
    rules.reload();
  });
  const remove = useSubmit(async (a: AlertRule) => {
    if (!confirm("Delete this alert?")) return;
    await ok(api.DELETE("/alerts/{id}", { params: { path: { id: a.id } } }));
    setNote("Alert deleted");
    rules.reload();
  });
  const subErr = subscribe.error?.fields ?? {};
  const err = create.error?.fields ?? {};
  const linkName = (id: string | null) => {
    if (!id) return "All links";
    const l = links.data?.find((x) => x.id === id);
    return l ? l.title || l.short_url : "A link";
  };

  return (
    <>
      <PageHeader title="Reports and alerts" />
      <p class="muted">
        Reports come by email on Mondays (the week before) and on the 1st (the month before). Alerts are checked every 15 minutes and sent
        at most once every 12 hours, by email and as the webhook event alert.triggered.
      </p>
      <Alert error={unsubscribe.error ?? toggle.error ?? remove.error} />
      <Status>{note}</Status>
      <h2>Email reports</h2>
      {writer ? (
        <FormCard id="subscribe" title="Send the reports to" action={subscribe}>
          <Field
            label="Email address"
            name="email"
            type="email"
            required
            maxLength={254}
            error={subErr.email}
            hint="Any address; it gets a link to unsubscribe."
          />
          <Checks
            legend="Reports"
            options={["weekly", "monthly"] as Frequency[]}
            names={{ weekly: "Weekly", monthly: "Monthly" }}
            value={frequencies}
            onChange={setFrequencies}
          />
          <div class="form-actions">
            <button type="submit" disabled={subscribe.busy || frequencies.length === 0}>
              Subscribe
            </button>
          </div>
        </FormCard>
      ) : (
        <NotAllowed role={session.role} what="subscribe people to reports" />
      )}
      <LoadedTable
        value={subs}
        what="Loading report subscriptions"
        empty={<p>No one gets the reports yet.</p>}
        id="report-subscriptions"
        columns={["Address", "Reports", "Since"]}
        actions={writer}
        row={(s) => (
          <tr>
            <td data-label="Address">{s.email}</td>
            <td data-label="Reports">{[s.weekly && "Weekly", s.monthly && "Monthly"].filter(Boolean).join(", ") || "None"}</td>
            <td data-label="Since">{fmtDateTime(s.created_at)}</td>
            {writer && (
              <td>
                <button type="button" class="danger" onClick={() => unsubscribe.submit(s)} disabled={unsubscribe.busy}>
                  Unsubscribe <span class="sr-only">{s.email}</span>
                </button>
              </td>
            )}
          </tr>
        )}
      />
      <h2>Alerts</h2>
      {writer && (
        <FormCard id="create-alert" title="Set an alert" action={create}>
          <Select label="When" name="kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as Kind)}>
            {(Object.keys(KIND_NAMES) as Kind[]).map((k) => (
              <option value={k}>{KIND_NAMES[k]}</option>
            ))}
          </Select>
          <Field
            label={kind === "conversion_drop" ? "N (percent)" : "N (visitors)"}
            name="threshold"
            type="number"
            required
            min={kind === "conversion_drop" ? 1 : 0}
            max={kind === "conversion_drop" ? 100 : undefined}
            error={err.threshold}
          />
          <Select label="On" name="link_id" required={kind === "conversion_drop"} error={err.link_id}>
            {kind !== "conversion_drop" && <option value="">All links</option>}
            {(links.data ?? []).map((l) => (
              <option value={l.id}>{l.title ? `${l.title} (${l.short_url})` : l.short_url}</option>
            ))}
          </Select>
          <Field
            label="Email to (optional)"
            name="recipients"
            hint="Addresses separated by spaces or commas; none: the webhook event only."
            error={Object.entries(err).find(([k]) => k.startsWith("recipients"))?.[1]}
          />
          <div class="form-actions">
            <button type="submit" disabled={create.busy}>
              Set alert
            </button>
          </div>
        </FormCard>
      )}
      <LoadedTable
        value={rules}
        what="Loading alerts"
        empty={<p>No alerts yet.</p>}
        id="alerts"
        columns={["Alert", "On", "Email to", "Last triggered"]}
        actions={writer}
        row={(a) => (
          <tr>
            <td data-label="Alert">
              {KIND_NAMES[a.kind].replace("N", String(a.threshold))}
              {!a.enabled && <div class="muted">Off</div>}
            </td>
            <td data-label="On">{linkName(a.link_id)}</td>
            <td data-label="Email to">{a.recipients.join(", ") || "Webhook only"}</td>
            <td data-label="Last triggered">{a.last_triggered_at ? `${fmtDateTime(a.last_triggered_at)} (${a.last_value})` : "Never"}</td>
            {writer && (
              <td>
                <button type="button" class="secondary" onClick={() => toggle.submit(a)} disabled={toggle.busy}>
                  {a.enabled ? "Turn off" : "Turn on"}
                </button>{" "}
                <button type="button" class="danger" onClick={() => remove.submit(a)} disabled={remove.busy}>
                  Delete
                </button>
              </td>
            )}
          </tr>
        )}
      />
    </>
  );
}
