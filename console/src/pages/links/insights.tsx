// A link's paths and retention (docs/insights.md), drawn by <svc-paths> and <svc-retention>, with a
// comparison with the previous period or the year before for both.
import { useState } from "preact/hooks";
import { Select } from "../../ui/parts";

const COMPARE = [
  ["", "No comparison"],
  ["previous", "Previous period"],
  ["year", "A year before"],
] as const;

export function Insights({ linkId, theme }: { linkId: string; theme: string }) {
  const [compare, setCompare] = useState("");
  const [direction, setDirection] = useState<"start" | "end">("start");
  const [target, setTarget] = useState("page_view");
  const [steps, setSteps] = useState("5");
  const [applied, setApplied] = useState({ direction: "start", target: "page_view", steps: "5" });
  const pathAttrs = { [applied.direction]: applied.target };

  return (
    <section class="card" aria-labelledby="insights">
      <div class="section-head">
        <h2 id="insights">Paths and retention</h2>
        <Select label="Compare with" value={compare} onChange={(e) => setCompare((e.target as HTMLSelectElement).value)}>
          {COMPARE.map(([value, label]) => (
            <option value={value}>{label}</option>
          ))}
        </Select>
      </div>
      <h3>Paths</h3>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (target.trim()) setApplied({ direction, target: target.trim(), steps });
        }}
      >
        <Select
          label="Direction"
          value={direction}
          onChange={(e) => setDirection((e.target as HTMLSelectElement).value as "start" | "end")}
        >
          <option value="start">After</option>
          <option value="end">Before</option>
        </Select>
        <div class="field">
          <label for="paths-target">Event name, event type or page URL</label>
          <input id="paths-target" value={target} onInput={(e) => setTarget((e.target as HTMLInputElement).value)} placeholder="/pricing" />
        </div>
        <Select label="Path length (steps)" value={steps} onChange={(e) => setSteps((e.target as HTMLSelectElement).value)}>
          {[2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => (
            <option value={String(n)}>{n}</option>
          ))}
        </Select>
        <button type="submit">Show paths</button>
      </form>
      <svc-paths id="w-paths" link-id={linkId} steps={applied.steps} compare={compare || undefined} theme={theme} {...pathAttrs} />
      <h3>Retention</h3>
      <svc-retention id="w-retention" link-id={linkId} weeks="8" compare={compare || undefined} theme={theme} />
    </section>
  );
}
