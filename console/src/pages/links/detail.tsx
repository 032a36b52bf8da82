// One link: its addresses and settings (with its targeting rules, A/B variants and click limit), edit and
// delete, its QR code, its stats and conversions (dashboard widgets), its numbers per variant, rule and
// source, and its journeys.
import { api, ok } from "../../api";
import { fmtDateTime, fmtNumber, fmtRelative } from "../../format";
import { navigate } from "../../router";
import { useSession } from "../../session";
import { useTheme } from "../../theme";
import type { Link } from "../../types";
import { useAsync, useSubmit } from "../../ui/async";
import { A, Alert, CopyButton, Failed, Loading, PageHeader } from "../../ui/parts";
import { GroupStats } from "./group-stats";
import { LinkAnalytics } from "./link-analytics";
import { Destinations } from "./destinations";
import { StatusBadge } from "./status";
import { CONVERSION_TRACKING_OFF } from "../../vocabulary";
import { Insights } from "./insights";
import { Journeys } from "./journeys";
import { QrPanel } from "./qr-panel";
import { describeConditions } from "./targeting";

export function LinkPage({ id }: { id: string }) {
  const { can } = useSession();
  const { theme } = useTheme();
  const link = useAsync(() => ok(api.GET("/links/{id}", { params: { path: { id } } })), [id]);
  const remove = useSubmit(async () => {
    if (!confirm("Delete this link? It stops working at once; you can restore it from the trash for 7 days.")) return;
    await ok(api.DELETE("/links/{id}", { params: { path: { id } } }));
    navigate("/trash");
  });
  if (link.state === "error" && !link.data) return <Failed error={link.error} retry={link.reload} page />;
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
      <Alert error={remove.error ?? link.error} />
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
            <StatusBadge link={l} />
            {l.is_password_protected && " · password-protected"}
            {l.expires_at && ` · ${Date.parse(l.expires_at) <= Date.now() ? "expired" : "expires"} ${fmtDateTime(l.expires_at)}`}
          </dd>
          {l.expired_url && (
            <>
              <dt>After expiry</dt>
              <dd class="clip">{l.expired_url}</dd>
            </>
          )}
          {l.max_clicks !== null && (
            <>
              <dt>Click limit</dt>
              <dd id="click-limit">
                {fmtNumber(l.counted_clicks ?? 0)} of {fmtNumber(l.max_clicks)} people's clicks counted
                {(l.counted_clicks ?? 0) >= l.max_clicks && (
                  <>
                    {" "}
                    <span class="badge warn">Reached</span>
                  </>
                )}
                <div class="muted clip">Then: {l.max_clicks_url ?? "a page saying the link reached its limit"}</div>
              </dd>
            </>
          )}
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
        <Targeting link={l} />
        <Destinations linkId={l.id} updatedAt={l.updated_at} />
      </section>
      <div class="widgets two">
        {can("analytics:read") && <svc-realtime id="w-realtime-clicks" link-id={l.id} theme={theme} />}
        {can("journey:read") && <svc-realtime id="w-realtime-journey" link-id={l.id} source="journey" theme={theme} />}
      </div>
      {can("analytics:read") && <LinkAnalytics linkId={l.id} />}
      <QrPanel link={l} onChanged={link.reload} />
      {can("conversions:read") &&
        (l.track_conversions ? (
          <div class="widgets">
            <svc-conversions id="w-link-conversions" link-id={l.id} theme={theme} />
          </div>
        ) : (
          <p class="card muted" id="conversion-tracking-off">
            {CONVERSION_TRACKING_OFF}
          </p>
        ))}
      {can("analytics:read") && <GroupStats link={l} />}
      {can("journey:read") && <Journeys linkId={l.id} theme={theme} />}
      {can("journey:read") && <Insights linkId={l.id} theme={theme} />}
    </>
  );
}

function Targeting({ link }: { link: Link }) {
  if (!link.rules.length && !link.variants.length) return null;
  return (
    <>
      {link.rules.length > 0 && (
        <>
          <h3 id="link-rules">Targeting rules, in order</h3>
          <ol class="plain-list" aria-labelledby="link-rules">
            {link.rules.map((r) => (
              <li>
                {describeConditions(r.if)} → <span class="clip">{r.url}</span>
              </li>
            ))}
          </ol>
        </>
      )}
      {link.variants.length > 0 && (
        <>
          <h3 id="link-variants">A/B variants</h3>
          <ul class="plain-list" aria-labelledby="link-variants">
            {link.variants.map((v) => (
              <li>
                <span class="clip">{v.url}</span> <span class="badge">{v.weight}%</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
