// The journey summary's `imported` (another product's days before the link's own data, docs/moving.md
// "Plausible"): its totals and breakdowns, set apart under their own heading so they never read as ours.
import { fmtDay, fmtDuration, fmtNumber } from "../../format";
import type { ImportedJourneyFigures } from "../../types";
import { TableHead } from "../../ui/parts";

const BREAKDOWNS = [
  ["Pages", "top_pages"],
  ["Goals", "top_events"],
  ["Sources", "sources"],
  ["Entry pages", "entry_pages"],
  ["Exit pages", "exit_pages"],
  ["Countries", "countries"],
  ["Devices", "devices"],
  ["Browsers", "browsers"],
  ["Operating systems", "operating_systems"],
] as const;

/** A breakdown's rows as label and number, whatever the field's shape. */
function rowsOf(i: ImportedJourneyFigures, field: (typeof BREAKDOWNS)[number][1]): { label: string; n: number }[] {
  if (field === "top_pages") return i.top_pages.map((p) => ({ label: p.url, n: p.count }));
  if (field === "top_events") return i.top_events.map((e) => ({ label: e.name, n: e.count }));
  return i[field].map((v) => ({ label: v.value || "(none)", n: v.visitors }));
}

export function ImportedJourney({ imported: i }: { imported: ImportedJourneyFigures }) {
  const source = i.source.charAt(0).toUpperCase() + i.source.slice(1);
  // The day after the last one shown: the link's own data starts then, or the export ended the day before.
  const before = i.own_data_from ?? new Date(Date.parse(`${i.to}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return (
    <section aria-labelledby="journey-imported-heading" id="journey-imported">
      <h3 id="journey-imported-heading">
        Imported from {source}, {fmtDay(i.from)} – {fmtDay(i.to)}
      </h3>
      <p class="hint" id="journey-imported-line">
        {fmtNumber(i.visitors)} visitors on {fmtNumber(i.daily.length)} days before {fmtDay(before)}: {source}'s own counts (visitors summed
        over days), not counted in the figures above.
      </p>
      <dl class="stats">
        <div>
          <dt>Visitors</dt>
          <dd>{fmtNumber(i.visitors)}</dd>
        </div>
        <div>
          <dt>Visits</dt>
          <dd>{fmtNumber(i.visits)}</dd>
        </div>
        <div>
          <dt>Pageviews</dt>
          <dd>{fmtNumber(i.pageviews)}</dd>
        </div>
        <div>
          <dt>Average visit</dt>
          <dd>{fmtDuration(i.avg_visit_duration_seconds)}</dd>
        </div>
      </dl>
      <div class="breakdowns">
        {BREAKDOWNS.map(([name, field]) => {
          const rows = rowsOf(i, field);
          if (!rows.length) return null;
          const id = `imported-${field}`;
          return (
            <div class="breakdown">
              <h4 id={id}>{name}</h4>
              <table aria-labelledby={id} data-testid={id}>
                <TableHead columns={[name, field === "top_pages" ? "Pageviews" : field === "top_events" ? "Events" : "Visitors"]} />
                <tbody>
                  {rows.map((r) => (
                    <tr>
                      <th scope="row" title={r.label}>
                        {r.label}
                      </th>
                      <td>{fmtNumber(r.n)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          );
        })}
      </div>
    </section>
  );
}
