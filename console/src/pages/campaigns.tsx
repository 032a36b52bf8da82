// Campaigns: groups of links (Growth tier and up). Create, rename, delete; each shows its links' clicks
// over the last 30 days (GET /analytics/summary?campaign_id=…) and opens the links list filtered to it.
import { useState } from "preact/hooks";
import { api, ok } from "../api";
import { fmtDateTime, fmtNumber } from "../format";
import { useSession } from "../session";
import type { Campaign } from "../types";
import { useAsync, useSubmit } from "../ui/async";
import { Alert, Field, LoadedTable, NotAllowed, PageHeader, Status } from "../ui/parts";
import { TERMS } from "../vocabulary";

export function CampaignsPage() {
  const { can, session } = useSession();
  const campaigns = useAsync(async () => {
    const list = await ok(api.GET("/campaigns"));
    const clicks = can("analytics:read")
      ? await Promise.all(
          list.map((c) =>
            ok(api.GET("/analytics/summary", { params: { query: { campaign_id: c.id, days: 30 } } })).then(
              (r) => r.analytics.total_clicks,
              () => null,
            ),
          ),
        )
      : list.map(() => null);
    return list.map((c, i) => ({ ...c, clicks: clicks[i] }));
  }, []);
  const [note, setNote] = useState("");
  const add = useSubmit(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const c = await ok(
      api.POST("/campaigns", { body: { name: String(data.get("name") ?? ""), description: String(data.get("description") ?? "") } }),
    );
    form.reset();
    setNote(`${c.name} created: pick it in a link's form`);
    campaigns.reload();
  });
  const remove = useSubmit(async (c: Campaign) => {
    if (!confirm(`Delete the campaign ${c.name}? Its links stay, without a campaign.`)) return;
    await ok(api.DELETE("/campaigns/{id}", { params: { path: { id: c.id } } }));
    setNote(`${c.name} deleted`);
    campaigns.reload();
  });
  const upgrade = campaigns.error?.code === "TIER_UPGRADE_REQUIRED";
  return (
    <>
      <PageHeader title="Campaigns" />
      <p class="muted">A campaign groups links (a launch, a newsletter): pick one in a link's form, then see their clicks together.</p>
      {upgrade ? (
        <p class="card" id="campaigns-tier">
          Campaigns come with the Growth tier and up: {campaigns.error?.message}
        </p>
      ) : (
        <>
          {can("links:write") ? (
            <form
              class="card form-grid"
              aria-labelledby="add-campaign"
              onSubmit={(e) => (e.preventDefault(), add.submit(e.target as HTMLFormElement))}
            >
              <h2 id="add-campaign">New campaign</h2>
              <Alert error={add.error} />
              <Field label="Name" name="name" required maxLength={200} error={add.error?.fields.name} />
              <Field label="Description" name="description" maxLength={2000} error={add.error?.fields.description} />
              <div class="form-actions">
                <button type="submit" disabled={add.busy}>
                  Create campaign
                </button>
              </div>
            </form>
          ) : (
            <NotAllowed role={session.role} what="create campaigns" />
          )}
          <Alert error={remove.error} />
          <Status>{note}</Status>
          <LoadedTable
            value={campaigns}
            what="Loading campaigns"
            empty={<p>No campaigns yet.</p>}
            id="campaigns"
            columns={["Campaign", `${TERMS.clicks.name}, 30 days`, "Created"]}
            actions={can("links:write")}
            row={(c) => (
              <tr>
                <td data-label="Campaign">
                  <strong>{c.name}</strong>
                  {c.description && <div class="muted">{c.description}</div>}
                </td>
                <td data-label={`${TERMS.clicks.name}, 30 days`}>{fmtNumber(c.clicks)}</td>
                <td data-label="Created">{fmtDateTime(c.created_at)}</td>
                {can("links:write") && (
                  <td>
                    <button type="button" class="danger" onClick={() => remove.submit(c)} disabled={remove.busy}>
                      Delete <span class="sr-only">{c.name}</span>
                    </button>
                  </td>
                )}
              </tr>
            )}
          />
        </>
      )}
    </>
  );
}
