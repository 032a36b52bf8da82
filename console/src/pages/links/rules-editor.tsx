// Targeting rules, in order: each a set of conditions (countries, devices, operating systems, preferred
// languages, a query parameter) and the destination used when they all hold. Rules are added, removed and
// moved with buttons; focus follows the moved rule and each change is announced. The API's errors for a
// rule (`rules.1.if.country.0`) show beside the condition they name.
import { useEffect, useState } from "preact/hooks";
import { Checks, Field, Status } from "../../ui/parts";
import { DEVICES, OSES, OS_NAMES, emptyRule, errorsAt, type RuleDraft } from "./targeting";

export function RulesEditor({
  rules,
  onChange,
  fields,
}: {
  rules: RuleDraft[];
  onChange: (rules: RuleDraft[]) => void;
  fields: Record<string, string>;
}) {
  const [note, setNote] = useState("");
  // After a change, the element to focus: a rule's first field, a moved rule's button, or "Add a rule".
  // A move waits for the render that shows the rule at its new place (`at`): the buttons' disabled
  // state is only right then, and a focused button that becomes disabled keeps the focus in Chromium.
  const [focus, setFocus] = useState<{ key: number; at?: number; button?: "up" | "down" } | "add" | null>(null);
  useEffect(() => {
    if (focus === null) return;
    if (focus === "add") document.getElementById("add-rule")?.focus();
    else {
      if (focus.at !== undefined && rules[focus.at]?.key !== focus.key) return;
      const li = document.getElementById(`rule-${focus.key}`);
      const wanted = focus.button && li?.querySelector<HTMLButtonElement>(`button[data-move=${focus.button}]:not(:disabled)`);
      (wanted || li?.querySelector<HTMLButtonElement>("button[data-move]:not(:disabled)") || li?.querySelector("input"))?.focus();
    }
    setFocus(null);
  }, [focus, rules]);

  const update = (i: number, change: Partial<RuleDraft>) => onChange(rules.map((r, j) => (j === i ? { ...r, ...change } : r)));
  const move = (i: number, by: -1 | 1) => {
    const next = [...rules];
    const [r] = next.splice(i, 1);
    next.splice(i + by, 0, r);
    onChange(next);
    setNote(`Rule ${i + 1} moved to position ${i + by + 1}`);
    setFocus({ key: r.key, at: i + by, button: by < 0 ? "up" : "down" });
  };
  const remove = (i: number) => {
    onChange(rules.filter((_, j) => j !== i));
    setNote(`Rule ${i + 1} removed`);
    setFocus(rules[i + 1] ? { key: rules[i + 1].key } : i > 0 ? { key: rules[i - 1].key } : "add");
  };
  const add = () => {
    const r = emptyRule();
    onChange([...rules, r]);
    setNote(`Rule ${rules.length + 1} added`);
    setFocus({ key: r.key });
  };

  return (
    <fieldset class="wide">
      <legend>Targeting rules</legend>
      <p class="hint">
        The first rule whose conditions all hold chooses the destination; otherwise the A/B variants, or the destination above, apply.
      </p>
      {fields.rules && <small class="field-error">{fields.rules}</small>}
      <ol class="rules" id="rules">
        {rules.map((r, i) => {
          const at = (f: string) => errorsAt(fields, `rules.${i}.${f}`);
          return (
            <li id={`rule-${r.key}`} key={r.key}>
              <fieldset class="rule">
                <legend>Rule {i + 1}</legend>
                <div class="rule-conditions">
                  <Field
                    label="Countries"
                    value={r.country}
                    onInput={(e) => update(i, { country: (e.target as HTMLInputElement).value })}
                    hint="ISO codes, e.g. DE, AT"
                    error={at("if.country")}
                  />
                  <Field
                    label="Languages"
                    value={r.language}
                    onInput={(e) => update(i, { language: (e.target as HTMLInputElement).value })}
                    hint="The browser's first language, e.g. de, fr"
                    error={at("if.language")}
                  />
                  <Checks
                    legend="Devices"
                    options={DEVICES}
                    value={r.device}
                    onChange={(device) => update(i, { device })}
                    error={at("if.device")}
                  />
                  <Checks
                    legend="Operating systems"
                    options={OSES}
                    names={OS_NAMES}
                    value={r.os}
                    onChange={(os) => update(i, { os })}
                    error={at("if.os")}
                  />
                  <Field
                    label="Query parameter"
                    value={r.queryName}
                    onInput={(e) => update(i, { queryName: (e.target as HTMLInputElement).value })}
                    hint="Of the short link, e.g. ref"
                    error={at("if.query.name") ?? fields[`rules.${i}.if.query`]}
                  />
                  <Field
                    label="Parameter value"
                    value={r.queryValue}
                    onInput={(e) => update(i, { queryValue: (e.target as HTMLInputElement).value })}
                    error={at("if.query.value")}
                  />
                </div>
                {fields[`rules.${i}.if`] && <small class="field-error">Conditions: {fields[`rules.${i}.if`]}</small>}
                <Field
                  label="Then send visitors to"
                  type="url"
                  required
                  value={r.url}
                  onInput={(e) => update(i, { url: (e.target as HTMLInputElement).value })}
                  placeholder="https://example.com/de"
                  error={at("url")}
                />
                <div class="actions">
                  <button type="button" class="secondary" data-move="up" disabled={i === 0} onClick={() => move(i, -1)}>
                    Move up<span class="sr-only"> rule {i + 1}</span>
                  </button>
                  <button type="button" class="secondary" data-move="down" disabled={i === rules.length - 1} onClick={() => move(i, 1)}>
                    Move down<span class="sr-only"> rule {i + 1}</span>
                  </button>
                  <button type="button" class="danger" onClick={() => remove(i)}>
                    Remove<span class="sr-only"> rule {i + 1}</span>
                  </button>
                </div>
              </fieldset>
            </li>
          );
        })}
      </ol>
      <button type="button" class="secondary" id="add-rule" onClick={add} disabled={rules.length >= 50}>
        Add a rule
      </button>
      <Status>{note}</Status>
    </fieldset>
  );
}
