// A/B variants: destinations with weights in percent. The total is shown as it is typed, with an error
// while it is not 100; the API's errors (`variants`, `variants.1.url`) show beside what they name.
import { useEffect, useState } from "preact/hooks";
import { Field, Status } from "../../ui/parts";
import { errorsAt, newKey, splitEvenly, weightSum, type VariantDraft } from "./targeting";

export function VariantsEditor({
  variants,
  onChange,
  fields,
}: {
  variants: VariantDraft[];
  onChange: (variants: VariantDraft[]) => void;
  fields: Record<string, string>;
}) {
  const [note, setNote] = useState("");
  const [focus, setFocus] = useState<number | "add" | null>(null);
  useEffect(() => {
    if (focus === null) return;
    (focus === "add"
      ? document.getElementById("add-variant")
      : document.querySelector<HTMLInputElement>(`#variant-${focus} input`)
    )?.focus();
    setFocus(null);
  }, [focus]);

  const update = (i: number, change: Partial<VariantDraft>) => onChange(variants.map((v, j) => (j === i ? { ...v, ...change } : v)));
  const add = () => {
    // A first variant comes with a second: the API takes none, or two to ten.
    const added =
      variants.length === 0
        ? [
            { key: newKey(), url: "", weight: "" },
            { key: newKey(), url: "", weight: "" },
          ]
        : [{ key: newKey(), url: "", weight: "" }];
    const next = splitEvenly([...variants, ...added]);
    onChange(next);
    setNote(`${added.length === 2 ? "Two variants" : `Variant ${next.length}`} added; weights split evenly`);
    setFocus(added[0].key);
  };
  const remove = (i: number) => {
    const next = variants.filter((_, j) => j !== i);
    onChange(next);
    setNote(`Variant ${i + 1} removed`);
    setFocus(next[i]?.key ?? next[i - 1]?.key ?? "add");
  };
  const sum = weightSum(variants);
  const sumError = variants.length > 0 && sum !== 100;

  return (
    <fieldset class="wide" aria-describedby={variants.length ? "variants-total" : undefined}>
      <legend>A/B variants</legend>
      <p class="hint">
        New visitors are split by weight between two to ten destinations, and keep theirs on later visits (a cookie of the short link, 90
        days). Targeting rules come first.
      </p>
      <ol class="variants" id="variants">
        {variants.map((v, i) => (
          <li id={`variant-${v.key}`} key={v.key}>
            <fieldset class="variant">
              <legend>Variant {i + 1}</legend>
              <Field
                label="Variant URL"
                type="url"
                required
                value={v.url}
                onInput={(e) => update(i, { url: (e.target as HTMLInputElement).value })}
                placeholder="https://example.com/b"
                error={errorsAt(fields, `variants.${i}.url`)}
              />
              <Field
                label="Weight (%)"
                type="number"
                inputMode="numeric"
                min={0}
                max={100}
                step={1}
                required
                value={v.weight}
                onInput={(e) => update(i, { weight: (e.target as HTMLInputElement).value })}
                error={errorsAt(fields, `variants.${i}.weight`)}
              />
              <button type="button" class="danger" onClick={() => remove(i)}>
                Remove<span class="sr-only"> variant {i + 1}</span>
              </button>
            </fieldset>
          </li>
        ))}
      </ol>
      {variants.length > 0 && (
        <p id="variants-total" class={sumError ? "field-error" : "muted"} aria-live="polite">
          {sumError ? `The weights add up to ${sum}%; they must add up to 100%.` : "The weights add up to 100%."}
        </p>
      )}
      {fields.variants && <small class="field-error">{fields.variants}</small>}
      <div class="actions">
        <button type="button" class="secondary" id="add-variant" onClick={add} disabled={variants.length >= 10}>
          Add a variant
        </button>
        {variants.length > 1 && (
          <button type="button" class="secondary" onClick={() => (onChange(splitEvenly(variants)), setNote("Weights split evenly"))}>
            Split evenly
          </button>
        )}
      </div>
      <Status>{note}</Status>
    </fieldset>
  );
}
