// Choosing one of the account's links by typing part of its code, title or destination: a combobox
// (ARIA's editable combobox with a list) over GET /links?search=, ten matches at a time. Arrow keys move
// through the matches, Enter picks one, Escape closes the list; `onPick` hears of the link picked (null
// once the text is changed again).
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { api, okPage } from "../api";
import type { Link } from "../types";
import { FieldNotes } from "./parts";

const describe = (l: Link) => (l.title ? `${l.short_code} · ${l.title}` : l.short_code);

export function LinkPicker(props: { label: string; hint?: string; error?: string; onPick: (link: Link | null) => void }) {
  const { label, hint, error, onPick } = props;
  const id = useId();
  const [text, setText] = useState("");
  const [picked, setPicked] = useState<Link | null>(null);
  const [open, setOpen] = useState(false);
  const [matches, setMatches] = useState<Link[] | null>(null);
  const [active, setActive] = useState(-1);
  const [failed, setFailed] = useState("");
  const seq = useRef(0);

  // The matches of what is typed, a moment after the last key.
  useEffect(() => {
    if (!open) return;
    const mine = ++seq.current;
    const timer = setTimeout(async () => {
      try {
        const search = text.trim();
        const page = await okPage(api.GET("/links", { params: { query: { per_page: 10, ...(search ? { search } : {}) } } }));
        if (mine !== seq.current) return;
        setMatches(page.items);
        setActive(page.items.length ? 0 : -1);
        setFailed("");
      } catch (e) {
        if (mine === seq.current) setFailed((e as Error).message);
      }
    }, 150);
    return () => clearTimeout(timer);
  }, [text, open]);

  const pick = (l: Link) => {
    setPicked(l);
    setText(describe(l));
    setOpen(false);
    onPick(l);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const n = matches?.length ?? 0;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (!open) return setOpen(true);
      if (n) setActive((a) => (e.key === "ArrowDown" ? (a + 1) % n : (a - 1 + n) % n));
    } else if (e.key === "Enter" && open && matches && active >= 0) {
      e.preventDefault(); // picks; does not send the form
      pick(matches[active]);
    } else if (e.key === "Escape" && open) {
      e.preventDefault();
      setOpen(false);
    }
  };

  const list = `${id}-list`;
  const showList = open && matches !== null;
  const note = failed || (showList && matches.length === 0 ? "No link matches: type part of its code, title or destination." : hint);
  const described = [note ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div class="field picker">
      <label for={id}>{label}</label>
      <input
        id={id}
        role="combobox"
        autocomplete="off"
        aria-autocomplete="list"
        aria-expanded={showList}
        aria-controls={list}
        aria-activedescendant={showList && active >= 0 ? `${id}-${active}` : undefined}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={described}
        placeholder="Type a code or title"
        value={text}
        onInput={(e) => {
          setText((e.target as HTMLInputElement).value);
          setOpen(true);
          if (picked) setPicked(null), onPick(null);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      <ul id={list} role="listbox" aria-label={label} hidden={!showList}>
        {matches?.map((l, i) => (
          <li
            id={`${id}-${i}`}
            role="option"
            aria-selected={i === active}
            // Keeps the focus in the input, so its blur does not close the list before the click.
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => pick(l)}
          >
            <strong>{l.short_code}</strong> {l.title && <span>{l.title}</span>} <span class="muted clip">{l.original_url}</span>
          </li>
        ))}
      </ul>
      <FieldNotes id={id} hint={note} error={error} />
    </div>
  );
}
