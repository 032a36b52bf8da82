// Shared dashboards: read-only pages of the account, a campaign or one link for people without an
// account (docs/sharing.md). Create one (its address is shown once), turn it off and on, give it a new
// address (the old one works a few minutes more), delete it.
import { useState } from "preact/hooks";
import { api, ok } from "../api";
import { fmtDateTime } from "../format";
import { useSession } from "../session";
import type { Share } from "../types";
import { useAsync, useSubmit } from "../ui/async";
import { Alert, Checks, CopyButton, Field, FormCard, LoadedTable, NotAllowed, PageHeader, Select, Status } from "../ui/parts";

type Scope = Share["scope"];
type Report = Share["reports"][number];
const REPORTS: Report[] = [
  "summary",
  "timeseries",
  "geo",
  "devices",
  "referrers",
  "hourly",
  "realtime",
  "link_stats",
  "funnel",
  "paths",
  "retention",
  "conversions",
  "attribution",
];
const REPORT_NAMES: Record<Report, string> = {
  summary: "Click totals",
  timeseries: "Clicks per day",
  geo: "Countries",
  devices: "Devices",
  referrers: "Referrers",
  hourly: "Hours of the day",
  link_stats: "The link's totals",
  funnel: "Funnel",
  conversions: "Conversions",
  paths: "Paths through the site",
  retention: "Returning visitors",
  realtime: "Realtime clicks",
  attribution: "Conversion attribution",
};
/** The scopes a report may be shared in (the server's rule, docs/sharing.md); the rest: every scope. */
const REPORT_SCOPES: Partial<Record<Report, Scope[]>> = {
  link_stats: ["link"],
  funnel: ["link"],
  paths: ["link"],
  retention: ["link"],
  conversions: ["account", "link"],
  attribution: ["account", "campaign"],
};
const offered = (scope: Scope) => REPORTS.filter((r) => REPORT_SCOPES[r]?.includes(scope) ?? true);
/** The reports that show the comparison when the share has one. */
const COMPARING: Report[] = ["paths", "retention", "conversions"];
type Compare = "previous" | "year";
const COMPARE_NAMES: Record<Compare, string> = { previous: "the previous period", year: "the same period a year before" };
const origins = (text: string) => text.split(/[\s,]+/).filter(Boolean);

export function SharesPage() {
  const { can, session } = useSession();
  const shares = useAsync(() => ok(api.GET("/shares")), []);
  const targets = useAsync(async () => {
    const [links, campaigns] = await Promise.all([
      ok(api.GET("/links", { params: { query: { per_page: 100 } } })),
      ok(api.GET("/campaigns")).catch(() => []),
    ]);
    return { links, campaigns };
  }, []);
  const [scope, setScope] = useState<Scope>("account");
  const [reports, setReports] = useState<Report[]>(["summary", "timeseries", "geo", "referrers"]);
  const [compare, setCompare] = useState<"" | Compare>("");
  const comparing = reports.some((r) => COMPARING.includes(r) && offered(scope).includes(r));
  const [created, setCreated] = useState<{ title: string; url: string } | null>(null);
  const [note, setNote] = useState("");

  const create = useSubmit(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? "").trim();
    const expires = text("expires_at");
    const answer = await ok(
      api.POST("/shares", {
        body: {
          title: text("title"),
          scope,
          ...(scope === "link" ? { link_id: text("link_id") } : {}),
          ...(scope === "campaign" ? { campaign_id: text("campaign_id") } : {}),
          reports: reports.filter((r) => offered(scope).includes(r)),
          ...(scope === "link" && reports.includes("funnel") ? { funnel_steps: origins(text("funnel_steps")) } : {}),
          ...(comparing && compare ? { compare } : {}),
          ...(text("password") ? { password: text("password") } : {}),
          ...(expires ? { expires_at: new Date(expires).toISOString() } : {}),
          allowed_origins: origins(text("allowed_origins")),
        },
      }),
    );
    form.reset();
    setCreated({ title: answer.share.title, url: answer.url });
    shares.reload();
  });
  const toggle = useSubmit(async (s: Share) => {
    await ok(api.PATCH("/shares/{id}", { params: { path: { id: s.id } }, body: { enabled: !s.enabled } }));
    setNote(`${s.title} ${s.enabled ? "turned off: its address shows nothing" : "turned on"}`);
    shares.reload();
  });
  const rotate = useSubmit(async (s: Share) => {
    if (!confirm(`Give ${s.title} a new address? The current one keeps working for 10 minutes.`)) return;
    const answer = await ok(api.POST("/shares/{id}/rotate", { params: { path: { id: s.id } }, body: { grace_minutes: 10 } }));
    setCreated({ title: answer.share.title, url: answer.url });
    shares.reload();
  });
  const remove = useSubmit(async (s: Share) => {
    if (!confirm(`Delete the shared dashboard ${s.title}? Its address will show nothing.`)) return;
    await ok(api.DELETE("/shares/{id}", { params: { path: { id: s.id } } }));
    setNote(`${s.title} deleted`);
    shares.reload();
  });
  const err = create.error?.fields ?? {};
  const linkName = (id: string | null) =>
    targets.data?.links.find((l) => l.id === id)?.title || targets.data?.links.find((l) => l.id === id)?.short_url || "a link";
  const campaignName = (id: string | null) => targets.data?.campaigns.find((c) => c.id === id)?.name ?? "a campaign";
  const what = (s: Share) => (s.scope === "account" ? "All links" : s.scope === "link" ? linkName(s.link_id) : campaignName(s.campaign_id));
  const state = (s: Share) =>
    !s.enabled
      ? "Off"
      : s.expires_at && new Date(s.expires_at).getTime() <= Date.now()
        ? "Expired"
        : s.has_password
          ? "On, with a password"
          : "On";

  return (
    <>
      <PageHeader title="Shared dashboards" />
      <p class="muted">
        A read-only page of your numbers for people without an account: anyone with its address sees the reports you pick, and nothing else.
      </p>
      {created && (
        <div class="card new-secret" role="region" aria-labelledby="new-share">
          <h2 id="new-share">The address of “{created.title}”</h2>
          <p>Copy it now: it is shown only this once.</p>
          <p class="secret">
            <code id="new-share-url">{created.url}</code> <CopyButton text={created.url} label="Copy address" />
          </p>
          <button type="button" class="secondary" onClick={() => setCreated(null)}>
            I have copied it
          </button>
        </div>
      )}
      {can("links:write") ? (
        <FormCard id="create-share" title="Share a dashboard" action={create}>
          <Field
            label="Title"
            name="title"
            required
            maxLength={200}
            error={err.title}
            hint="The page's heading, e.g. “Spring campaign for Acme”."
          />
          <Select
            label="What it shows"
            name="scope"
            value={scope}
            onChange={(e) => setScope((e.target as HTMLSelectElement).value as Scope)}
          >
            <option value="account">All links of the account</option>
            <option value="campaign">One campaign</option>
            <option value="link">One link</option>
          </Select>
          {scope === "link" && (
            <Select label="Link" name="link_id" required error={err.link_id}>
              {(targets.data?.links ?? []).map((l) => (
                <option value={l.id}>{l.title ? `${l.title} (${l.short_url})` : l.short_url}</option>
              ))}
            </Select>
          )}
          {scope === "campaign" && (
            <Select label="Campaign" name="campaign_id" required error={err.campaign_id}>
              {(targets.data?.campaigns ?? []).map((c) => (
                <option value={c.id}>{c.name}</option>
              ))}
            </Select>
          )}
          <Checks
            legend="Reports"
            options={offered(scope)}
            names={REPORT_NAMES}
            value={reports}
            onChange={setReports}
            error={err.reports}
          />
          {comparing && (
            <Select
              label="Compare with"
              name="compare"
              value={compare}
              onChange={(e) => setCompare((e.target as HTMLSelectElement).value as "" | Compare)}
              error={err.compare}
            >
              <option value="">Nothing (paths, returning visitors and conversions show one period)</option>
              <option value="previous">The previous period (same weekdays)</option>
              <option value="year">The same period a year before</option>
            </Select>
          )}
          {scope === "link" && reports.includes("funnel") && (
            <Field
              label="Funnel steps"
              name="funnel_steps"
              required
              hint="Event names in order, e.g. page_view signup purchase."
              error={err.funnel_steps}
            />
          )}
          <Field
            label="Password (optional)"
            name="password"
            type="password"
            minLength={8}
            maxLength={200}
            autoComplete="new-password"
            error={err.password}
          />
          <Field label="Expires (optional)" name="expires_at" type="datetime-local" error={err.expires_at} />
          <Field
            label="Sites that may embed it (optional)"
            name="allowed_origins"
            hint="Origins such as https://client.example, separated by spaces; no others may show it in a frame."
            error={Object.entries(err).find(([k]) => k.startsWith("allowed_origins"))?.[1]}
          />
          <div class="form-actions">
            <button type="submit" disabled={create.busy}>
              Share
            </button>
          </div>
        </FormCard>
      ) : (
        <NotAllowed role={session.role} what="share dashboards" />
      )}
      <Alert error={toggle.error ?? rotate.error ?? remove.error} />
      <Status>{note}</Status>
      <LoadedTable
        value={shares}
        what="Loading shared dashboards"
        empty={<p>No shared dashboards yet.</p>}
        id="shares"
        columns={["Dashboard", "Shows", "State", "Created"]}
        actions={can("links:write")}
        row={(s) => (
          <tr>
            <td data-label="Dashboard">
              <strong>{s.title}</strong>
              <div class="muted">
                <code>{s.token_prefix}…</code>
                {s.allowed_origins.length > 0 && ` · embeddable on ${s.allowed_origins.join(", ")}`}
              </div>
            </td>
            <td data-label="Shows">
              {what(s)}
              <div class="muted">
                {s.reports.map((r) => REPORT_NAMES[r]).join(", ")}
                {s.compare && `; compared with ${COMPARE_NAMES[s.compare]}`}
              </div>
            </td>
            <td data-label="State">
              {state(s)}
              {s.expires_at && <div class="muted">until {fmtDateTime(s.expires_at)}</div>}
            </td>
            <td data-label="Created">{fmtDateTime(s.created_at)}</td>
            {can("links:write") && (
              <td>
                <button type="button" class="secondary" onClick={() => toggle.submit(s)} disabled={toggle.busy}>
                  {s.enabled ? "Turn off" : "Turn on"} <span class="sr-only">{s.title}</span>
                </button>{" "}
                <button type="button" class="secondary" onClick={() => rotate.submit(s)} disabled={rotate.busy}>
                  New address <span class="sr-only">for {s.title}</span>
                </button>{" "}
                <button type="button" class="danger" onClick={() => remove.submit(s)} disabled={remove.busy}>
                  Delete <span class="sr-only">{s.title}</span>
                </button>
              </td>
            )}
          </tr>
        )}
      />
    </>
  );
}
