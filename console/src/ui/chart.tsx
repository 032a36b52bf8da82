// Line charts drawn as SVG: a day chart with a legend and its numbers as a table for screen readers, and
// a sparkline for a table cell. No chart library: a few polylines are all the console draws.
import { fmtDate, fmtNumber } from "../format";

export interface Series {
  name: string;
  values: number[];
  kind: "main" | "second" | "previous";
}

const W = 600;
const H = 160;

function points(values: number[], max: number, width: number, height: number) {
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  return values.map((v, i) => `${(i * step).toFixed(1)},${(height - (v / max) * (height - 4) - 2).toFixed(1)}`).join(" ");
}

export function Chart({ label, dates, series }: { label: string; dates: string[]; series: Series[] }) {
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={label}>
        <line x1="0" y1={H - 1} x2={W} y2={H - 1} class="axis" />
        {series.map((s) => (
          <polyline class={`line ${s.kind}`} points={points(s.values, max, W, H)} fill="none" vector-effect="non-scaling-stroke" />
        ))}
      </svg>
      <figcaption>
        <ul class="legend">
          {series.map((s) => (
            <li>
              <span class={`swatch ${s.kind}`} aria-hidden="true" /> {s.name}: {fmtNumber(s.values.reduce((a, b) => a + b, 0))}
            </li>
          ))}
        </ul>
        <span class="muted">
          {fmtDate(dates[0])} – {fmtDate(dates[dates.length - 1])} · highest day {fmtNumber(max)}
        </span>
      </figcaption>
      <details class="chart-table">
        <summary>Show the numbers per day</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {series.map((s) => (
                <th scope="col">{s.name}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {dates.map((d, i) => (
              <tr>
                <th scope="row">{fmtDate(d)}</th>
                {series.map((s) => (
                  <td>{fmtNumber(s.values[i] ?? 0)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** A small line of daily values (the links list's last 7 days); decorative: the number beside it says it. */
export function Sparkline({ values }: { values: number[] }) {
  const max = Math.max(1, ...values);
  return (
    <svg class="sparkline" viewBox="0 0 70 20" preserveAspectRatio="none" aria-hidden="true">
      <polyline points={points(values, max, 70, 20)} fill="none" vector-effect="non-scaling-stroke" />
    </svg>
  );
}
