// A link's lifetime numbers per A/B variant, per targeting rule and per source (the link itself or its QR
// code), from GET /links/{id}/stats?group_by=…: clicks, people's clicks, visitors, conversions, revenue and
// conversion rate (names from vocabulary.ts). Variants and rules no longer on the link keep their numbers and are marked so.
import { api, ok } from "../../api";
import { fmtAmount, fmtNumber, fmtRate } from "../../format";
import type { Link, LinkStatsGroup } from "../../types";
import { useAsync } from "../../ui/async";
import { Loaded, TableHead } from "../../ui/parts";
import { CONVERSION_TRACKING_OFF, TERMS } from "../../vocabulary";

const GROUPS = ["variant", "rule", "source"] as const;
type Group = (typeof GROUPS)[number];

const HEADINGS: Record<Group, string> = { variant: "A/B variants", rule: "Targeting rules", source: "Link or QR code" };
const EMPTY: Record<Group, string> = {
  variant: "This link has no A/B variants.",
  rule: "This link has no targeting rules.",
  source: "No clicks yet.",
};
const FIRST_COLUMN: Record<Group, string> = { variant: "Variant", rule: "Rule", source: "Source" };

export function GroupStats({ link }: { link: Link }) {
  const stats = useAsync(async () => {
    const path = { id: link.id };
    const all = await Promise.all(GROUPS.map((group_by) => ok(api.GET("/links/{id}/stats", { params: { path, query: { group_by } } }))));
    return Object.fromEntries(GROUPS.map((g, i) => [g, all[i].groups ?? []])) as Record<Group, LinkStatsGroup[]>;
  }, [link.id, link.updated_at]);

  return (
    <section class="card" aria-labelledby="group-stats">
      <h2 id="group-stats">Variants, rules and sources</h2>
      {!link.track_conversions && <p class="muted">{CONVERSION_TRACKING_OFF}</p>}
      <Loaded value={stats} what="Loading the numbers per variant, rule and source">
        {(data) => (
          <>
            {GROUPS.map((g) => (
              <>
                <h3 id={`groups-${g}-heading`}>{HEADINGS[g]}</h3>
                {data[g].length === 0 ? <p class="muted">{EMPTY[g]}</p> : <GroupTable group={g} rows={data[g]} />}
              </>
            ))}
          </>
        )}
      </Loaded>
    </section>
  );
}

function label(group: Group, row: LinkStatsGroup) {
  if (group === "source") return row.source === "qr" ? "QR code" : "Link";
  if (group === "rule")
    return (
      <>
        Rule {row.rule} <span class="muted clip">{row.url ?? "(no longer on the link)"}</span>
      </>
    );
  return (
    <>
      <span class="clip">{row.variant}</span>{" "}
      <span class="muted">{row.weight === null || row.weight === undefined ? "(no longer on the link)" : `${row.weight}%`}</span>
    </>
  );
}

function GroupTable({ group, rows }: { group: Group; rows: LinkStatsGroup[] }) {
  return (
    <table class="group-table" id={`groups-${group}`} aria-labelledby={`groups-${group}-heading`}>
      <caption class="hint">Visitors are counted once per UTC day: no stored identifier crosses days.</caption>
      <TableHead
        columns={[
          FIRST_COLUMN[group],
          TERMS.allClicks.name,
          TERMS.clicks.name,
          TERMS.visitors.name,
          "Conversions",
          "Revenue",
          TERMS.clickConversionRate.name,
        ]}
      />
      <tbody>
        {rows.map((r) => (
          <tr>
            <th scope="row" data-label={FIRST_COLUMN[group]}>
              {label(group, r)}
            </th>
            <td data-label={TERMS.allClicks.name}>{fmtNumber(r.total_clicks)}</td>
            <td data-label={TERMS.clicks.name}>{fmtNumber(r.human_clicks)}</td>
            <td data-label={TERMS.visitors.name}>{fmtNumber(r.unique_visitors)}</td>
            <td data-label="Conversions">{fmtNumber(r.conversions)}</td>
            <td data-label="Revenue">{fmtAmount(r.revenue)}</td>
            <td data-label={TERMS.clickConversionRate.name}>{fmtRate(r.conversion_rate)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
