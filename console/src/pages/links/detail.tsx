// One link: its addresses and settings, edit and delete, its stats and conversions (dashboard widgets),
// and its journeys.
import { API, del, get } from "../../api";
import { fmtDateTime, fmtRelative } from "../../format";
import { navigate } from "../../router";
import { useSession } from "../../session";
import { useTheme } from "../../theme";
import type { Link } from "../../types";
import { useAsync, useSubmit } from "../../ui/async";
import { A, Alert, CopyButton, Failed, Loading, PageHeader } from "../../ui/parts";
import { Journeys } from "./journeys";

export function LinkPage({ id }: { id: string }) {
  const { can } = useSession();
  const { theme } = useTheme();
  const link = useAsync(() => get<Link>(`${API}/links/${id}`), [id]);
  const remove = useSubmit(async () => {
    if (!confirm("Delete this link? It stops working at once; you can restore it from the trash for 7 days.")) return;
    await del(`${API}/links/${id}`);
    navigate("/trash");
  });
  if (link.state === "error") return <Failed error={link.error} retry={link.reload} />;
  if (!link.data) return <Loading what="Loading the link" />;
  const l = link.data;
  return (
    <>
      <PageHeader title={l.title || l.short_code}>
        {can("links:write") && (
          <A to={`/links/${l.id}/edit`} class="button">
            Edit
          </A>
        )}
        {can("links:delete") && (
          <button type="button" class="danger" onClick={() => remove.submit()} disabled={remove.busy}>
            Delete
          </button>
        )}
      </PageHeader>
      <Alert error={remove.error} />
      <section class="card" aria-labelledby="link-details">
        <h2 id="link-details">Details</h2>
        <dl class="details">
          <dt>Short link</dt>
          <dd>
            <a href={l.short_url}>{l.short_url}</a> <CopyButton text={l.short_url} />
          </dd>
          <dt>Destination</dt>
          <dd class="clip">{l.original_url}</dd>
          <dt>Status</dt>
          <dd>
            {l.is_active ? "Active" : "Inactive"}
            {l.is_password_protected && " · password-protected"}
            {l.expires_at && ` · expires ${fmtDateTime(l.expires_at)}`}
          </dd>
          <dt>Tags</dt>
          <dd>{l.tags.length ? l.tags.map((t) => <span class="tag">{t}</span>) : "—"}</dd>
          <dt>Created</dt>
          <dd>{fmtDateTime(l.created_at)}</dd>
          <dt>Last click</dt>
          <dd>{fmtRelative(l.last_accessed_at)}</dd>
          {l.og_image && (
            <>
              <dt>Preview image</dt>
              <dd>
                <img class="og-preview" src={l.og_image} alt="The link's preview image" />
              </dd>
            </>
          )}
        </dl>
      </section>
      <div class="widgets two">
        {can("analytics:read") && <svc-link-stats id="w-link-stats" link-id={l.id} theme={theme} />}
        {can("conversions:read") && <svc-conversions id="w-link-conversions" link-id={l.id} theme={theme} />}
      </div>
      {can("journey:read") && <Journeys linkId={l.id} theme={theme} />}
    </>
  );
}
