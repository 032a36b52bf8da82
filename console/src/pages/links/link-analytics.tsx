// A link's analytics on its own page: clicks and visitors per day over a chosen range beside the previous
// period (weekday-aligned) or the same days a year before (the reports' `compare`), people's and bots'
// clicks apart, and the breakdowns by country, referrer, device, browser and OS. Everything is the click
// reports filtered by `link_id` (docs/api.md "Click analytics").
import { useState } from "preact/hooks";
import { api, ok } from "../../api";
import { fmtNumber } from "../../format";
import { useAsync } from "../../ui/async";
import { Loaded, Select, TableHead } from "../../ui/parts";
import { Chart } from "../../ui/chart";
import { TERMS } from "../../vocabulary";

const RANGES = [7, 30, 90] as const;
/** What the figures and the chart compare with (docs/insights.md "Comparison"). */
const COMPARE = { previous: "the previous period", year: "a year before" } as const;
type Compare = keyof typeof COMPARE;

type Count = { label: string; clicks: number };

/** The change from `before` to `now`, as "+25%", "−10%", "new" or "no change". */
export function change(now: number, before: number): string {
  if (now === before) return "no change";
  if (before === 0) return "new";
  const pct = Math.round(((now - before) / before) * 100);
  return `${pct > 0 ? "+" : "−"}${Math.abs(pct)}%`;
}

/** Rows of one dimension summed from the devices report (device, browser and OS come as one row). */
function sumBy(rows: { device_type: string; browser: string; os: string; clicks: number }[], key: "device_type" | "browser" | "os") {
  const out = new Map<string, number>();
  for (const r of rows) out.set(r[key] || "Unknown", (out.get(r[key] || "Unknown") ?? 0) + r.clicks);
  return [...out].map(([label, clicks]) => ({ label, clicks })).sort((a, b) => b.clicks - a.clicks);
}

export function LinkAnalytics({ linkId }: { linkId: string }) {
  const [days, setDays] = useState<number>(30);
  const [compare, setCompare] = useState<Compare>("previous");
  const data = useAsync(async () => {
    const q = { link_id: linkId, days };
    const [summary, bots, series, geo, referrers, devices] = await Promise.all([
      ok(api.GET("/analytics/summary", { params: { query: { ...q, compare } } })),
      ok(api.GET("/analytics/summary", { params: { query: { ...q, bot_filter: "bot" } } })),
      ok(api.GET("/analytics/timeseries", { params: { query: { ...q, compare } } })),
      ok(api.GET("/analytics/geo", { params: { query: q } })),
      ok(api.GET("/analytics/referrers", { params: { query: q } })),
      ok(api.GET("/analytics/devices", { params: { query: q } })),
    ]);
    const d = devices.analytics;
    // The compared days, aligned to the current ones from the end (retention may cut the compared range's start).
    const before = series.comparison?.data ?? [];
    const prevClicks = [...new Array<number>(Math.max(0, series.analytics.length - before.length)).fill(0), ...before.map((r) => r.clicks)];
    return {
      days,
      compared: COMPARE[compare],
      now: summary.analytics,
      before: summary.comparison?.data ?? { total_clicks: 0, unique_visitors: 0 },
      bots: bots.analytics.total_clicks,
      series: series.analytics,
      prevClicks,
      breakdowns: {
        Country: geo.analytics.map((r) => ({ label: r.country_code === "XX" ? "Unknown" : r.country_code, clicks: r.clicks })),
        Referrer: referrers.analytics.map((r) => ({
          label: r.referrer === "direct" ? "Direct (no referrer)" : r.referrer,
          clicks: r.clicks,
        })),
        Device: sumBy(d, "device_type"),
        Browser: sumBy(d, "browser"),
        OS: sumBy(d, "os"),
      } as Record<string, Count[]>,
    };
  }, [linkId, days, compare]);

  return (
    <section class="card link-analytics" aria-labelledby="link-analytics" id="link-analytics-card">
      <div class="section-head">
        <h2 id="link-analytics">Analytics</h2>
        <Select label="Range" name="range" value={String(days)} onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}>
          {RANGES.map((n) => (
            <option value={n}>Last {n} days</option>
          ))}
        </Select>
        <Select
          label="Compare clicks with"
          name="compare"
          value={compare}
          onChange={(e) => setCompare((e.target as HTMLSelectElement).value as Compare)}
        >
          {Object.entries(COMPARE).map(([value, label]) => (
            <option value={value}>{label[0].toUpperCase() + label.slice(1)}</option>
          ))}
        </Select>
      </div>
      <Loaded value={data} what="Loading the link's analytics">
        {({ days, compared, ...a }) => (
          <>
            <dl class="figures" aria-label={`Last ${days} days, compared with ${compared} (same weekdays)`}>
              <Figure name={TERMS.clicks.name} hint={TERMS.clicks.definition} now={a.now.total_clicks} before={a.before.total_clicks} />
              <Figure
                name={TERMS.visitors.name}
                hint={TERMS.visitors.definition}
                now={a.now.unique_visitors}
                before={a.before.unique_visitors}
              />
              <div class="figure" data-testid="bot-clicks">
                <dt title={TERMS.botClicks.definition}>{TERMS.botClicks.name}</dt>
                <dd>
                  <strong>{fmtNumber(a.bots)}</strong>
                  <small class="muted"> not in the figures above</small>
                </dd>
              </div>
            </dl>
            <Chart
              label={`${TERMS.clicks.name} and ${TERMS.visitors.name.toLowerCase()} per day, last ${days} days, with ${compared}`}
              dates={a.series.map((r) => r.date)}
              series={[
                { name: TERMS.clicks.name, values: a.series.map((r) => r.clicks), kind: "main" },
                { name: TERMS.visitors.name, values: a.series.map((r) => r.unique_visitors), kind: "second" },
                { name: `${TERMS.clicks.name}, ${compared}`, values: a.prevClicks, kind: "previous" },
              ]}
            />
            <div class="breakdowns">
              {Object.entries(a.breakdowns).map(([name, rows]) => (
                <Breakdown name={name} rows={rows} />
              ))}
            </div>
            <p class="muted">
              {TERMS.clicks.name} and breakdowns count people only; {TERMS.botClicks.name.toLowerCase()} (crawlers, link previews, scripts)
              are counted apart. Days are UTC.
            </p>
          </>
        )}
      </Loaded>
    </section>
  );
}

function Figure({ name, hint, now, before }: { name: string; hint: string; now: number; before: number }) {
  return (
    <div class="figure">
      <dt title={hint}>{name}</dt>
      <dd>
        <strong>{fmtNumber(now)}</strong>{" "}
        <small class="muted">
          {change(now, before)} <span class="sr-only">from</span>
          <span aria-hidden="true">vs</span> {fmtNumber(before)} before
        </small>
      </dd>
    </div>
  );
}

function Breakdown({ name, rows }: { name: string; rows: Count[] }) {
  const id = `breakdown-${name.toLowerCase()}`;
  const top = rows.slice(0, 8);
  const max = Math.max(1, ...top.map((r) => r.clicks));
  return (
    <div class="breakdown">
      <h3 id={id}>{name}</h3>
      {top.length === 0 ? (
        <p class="muted">No clicks in this range.</p>
      ) : (
        <table aria-labelledby={id} data-testid={id}>
          <TableHead columns={[name, TERMS.clicks.name]} />
          <tbody>
            {top.map((r) => (
              <tr>
                <th scope="row" class="bar-cell" title={r.label}>
                  <span class="bar" style={{ width: `${(r.clicks / max) * 100}%` }} aria-hidden="true" />
                  <span class="bar-label">{r.label}</span>
                </th>
                <td>{fmtNumber(r.clicks)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
