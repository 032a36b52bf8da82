// The account: its tier, and this month's clicks, journey events, keys and webhook endpoints against the limits.
import { CONSOLE, get } from "../api";
import { fmtDate, fmtNumber, fmtPercent, locale } from "../format";
import type { AccountOverview } from "../types";
import { useAsync } from "../ui/async";
import { Failed, Loading, PageHeader } from "../ui/parts";

function Meter({ label, used, limit }: { label: string; used: number; limit: number | null }) {
  return (
    <div class="meter">
      <div class="meter-label">
        <span>{label}</span>
        <span>
          {fmtNumber(used)} of {limit === null ? "unlimited" : fmtNumber(limit)}{" "}
          {limit !== null && <span class="muted">({fmtPercent(used, limit)})</span>}
        </span>
      </div>
      {limit !== null && <meter min={0} max={limit} value={Math.min(used, limit)} high={limit * 0.8} optimum={0} aria-label={label} />}
    </div>
  );
}

export function AccountPage() {
  const overview = useAsync(() => get<AccountOverview>(`${CONSOLE}/account`), []);
  if (overview.state === "error") return <Failed error={overview.error} retry={overview.reload} />;
  if (!overview.data) return <Loading what="Loading the account" />;
  const { account, usage, limits, month } = overview.data;
  const monthName = new Intl.DateTimeFormat(locale, { month: "long", year: "numeric", timeZone: "UTC" }).format(
    new Date(`${month}-01T00:00:00Z`),
  );
  return (
    <>
      <PageHeader title="Account" />
      <section class="card" aria-labelledby="plan">
        <h2 id="plan">
          {account.name} <span class="badge">{account.tier} tier</span>
        </h2>
        <p class="muted">Created {fmtDate(account.created_at)}. The tier is changed by the operator of this server.</p>
        <dl class="details">
          <dt>Requests per hour (API keys)</dt>
          <dd>{fmtNumber(limits.requests_per_hour)}</dd>
          <dt>Analytics retention</dt>
          <dd>{fmtNumber(limits.retention_days)} days</dd>
          <dt>Links per bulk import</dt>
          <dd>{fmtNumber(limits.bulk_batch_max)}</dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="usage">
        <h2 id="usage">Usage in {monthName} (UTC)</h2>
        <Meter label="Clicks" used={usage.clicks_this_month} limit={usage.click_limit} />
        <Meter label="Journey events" used={usage.journey_events_this_month} limit={usage.journey_event_limit} />
        <Meter label="API keys" used={usage.api_keys} limit={usage.api_key_limit} />
        <Meter label="Webhook endpoints" used={usage.webhook_endpoints} limit={usage.webhook_endpoint_limit} />
        <p class="muted">
          Past the click limit, analytics show only the most recent days that fit in it; journey events are refused above 150% of their
          limit.
        </p>
      </section>
    </>
  );
}
