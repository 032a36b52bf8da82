// Small accessible building blocks: links that route, labelled fields with their error, live regions
// for errors and progress, loading / empty / error states, table headings, a copy button, pagination, and
// the shapes the pages repeat: a form in a card, a loaded list as a table or as a list.
import type { ComponentChildren, InputHTMLAttributes, SelectHTMLAttributes } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { ApiError } from "../api";
import type { Async } from "./async";
import { navigate, BASE } from "../router";
import { fmtNumber } from "../format";

type AProps = {
  to: string;
  class?: string;
  children?: ComponentChildren;
  onClick?: (e: MouseEvent) => void;
  "aria-current"?: "page";
};

export function A(props: AProps) {
  const { to, onClick, ...rest } = props;
  return (
    <a
      {...rest}
      href={BASE + to}
      onClick={(e) => {
        onClick?.(e);
        if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(to);
      }}
    />
  );
}

let nextId = 0;
const useId = () => useState(() => `f${++nextId}`)[0];

type InputProps = InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: ComponentChildren; error?: string };

/** A field's hint and error, with the ids its control's aria-describedby names (`{id}-hint`, `{id}-error`). */
export function FieldNotes({ id, hint, error }: { id: string; hint?: ComponentChildren; error?: ComponentChildren }) {
  return (
    <>
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
      {error && (
        <small id={`${id}-error`} class="field-error">
          {error}
        </small>
      )}
    </>
  );
}

/** A labelled input; its hint and error are tied to it with aria-describedby. */
export function Field({ label, hint, error, ...input }: InputProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div class={`field${input.type === "checkbox" ? " check" : ""}`}>
      <label for={id}>{label}</label>
      <input id={id} aria-invalid={error ? "true" : undefined} aria-describedby={described} {...input} />
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}

export function Select(props: SelectHTMLAttributes<HTMLSelectElement> & { label: string; error?: string; children: ComponentChildren }) {
  const { label, error, children, ...rest } = props;
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} aria-invalid={error ? "true" : undefined} aria-describedby={error ? `${id}-error` : undefined} {...rest}>
        {children}
      </select>
      <FieldNotes id={id} error={error} />
    </div>
  );
}

/** A group of checkboxes under one legend (several values of one field), with the field's error. */
export function Checks<T extends string>(props: {
  legend: string;
  options: readonly T[];
  names?: Partial<Record<T, string>>;
  value: T[];
  onChange: (v: T[]) => void;
  error?: string;
}) {
  const { legend, options, names, value, onChange, error } = props;
  const id = useId();
  return (
    <fieldset class="checks" aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      {options.map((o) => (
        <label class="check">
          <input
            type="checkbox"
            value={o}
            checked={value.includes(o)}
            aria-invalid={error ? "true" : undefined}
            onChange={(e) => onChange((e.target as HTMLInputElement).checked ? [...value, o] : value.filter((x) => x !== o))}
          />{" "}
          {names?.[o] ?? o}
        </label>
      ))}
      <FieldNotes id={id} error={error} />
    </fieldset>
  );
}

/**
 * A field path of the API as people read it: `body.rules.1.if.country.0` → "Rule 2, country 1" (the
 * forms count from 1, the API from 0); `body.max_clicks_url` → "max clicks url".
 */
export function readableField(field: string): string {
  const parts = field
    .replace(/^(body|query|path)\.?/, "")
    .split(".")
    .filter((p) => p !== "if");
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const name = parts[i].replaceAll("_", " ");
    const next = parts[i + 1];
    if (next !== undefined && /^\d+$/.test(next)) {
      const label = name === "rules" ? "Rule" : name === "variants" ? "Variant" : name;
      out.push(`${label} ${Number(next) + 1}`);
      i++;
    } else out.push(name);
  }
  return out.join(", ") || "the request";
}

/** An error's message without the API's paths and codes: each field named as the form names it. */
export function readableMessage(error: ApiError): string {
  const fields = (error.details.fields as { field: string; message: string }[] | undefined) ?? [];
  if (error.code === "VALIDATION_ERROR" && fields.length)
    return `Please check: ${fields.map((f) => `${readableField(f.field)}: ${f.message}`).join("; ")}.`;
  return error.message;
}

/** The error of a form or page, read out by screen readers as it appears. */
export function Alert({ error, children }: { error?: ApiError | null; children?: ComponentChildren }) {
  return (
    <div role="alert" class={error || children ? "alert" : "alert empty"}>
      {error ? (
        <>
          {readableMessage(error)}
          {error.status >= 500 ? (
            <span class="code"> (server error {error.status}: try again, or tell whoever runs the server)</span>
          ) : null}
        </>
      ) : (
        children
      )}
    </div>
  );
}

/** Polite announcements: saved, copied, loading. */
export const Status = ({ children }: { children?: ComponentChildren }) => (
  <p role="status" class="status">
    {children}
  </p>
);

export const Loading = ({ what = "Loading" }: { what?: string }) => (
  <p class="loading" role="status" aria-busy="true">
    {what}…
  </p>
);

export const Empty = ({ children }: { children: ComponentChildren }) => <div class="empty-state">{children}</div>;

/** A page or section that failed: trying again helps after a network or server error, not after a 404. */
export function Failed({ error, retry, page }: { error: ApiError; retry: () => void; page?: boolean }) {
  if (error.status === 404)
    return (
      <div class="failed" id="not-found">
        {page ? <PageHeader title="Not found" /> : <h2>Not found</h2>}
        <p>This page's {error.message.replace(/ not found$/, "").toLowerCase() || "item"} does not exist, or it was deleted.</p>
        <p>
          <A to="/links">Back to the links</A> · <A to="/trash">Deleted links (trash)</A>
        </p>
      </div>
    );
  return (
    <div class="failed">
      <Alert error={error} />
      <button type="button" onClick={retry}>
        Try again
      </button>
    </div>
  );
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <>
      <button
        type="button"
        class="secondary"
        onClick={async () => {
          await navigator.clipboard?.writeText(text).catch(() => {});
          setDone(true);
          setTimeout(() => setDone(false), 2000);
        }}
      >
        {done ? "Copied" : label}
      </button>
      <span class="sr-only" role="status">
        {done ? "Copied to the clipboard" : ""}
      </span>
    </>
  );
}

export function Pagination({
  page,
  totalPages,
  total,
  onPage,
}: {
  page: number;
  totalPages: number;
  total: number;
  onPage: (p: number) => void;
}) {
  if (totalPages <= 1) return <p class="muted">{fmtNumber(total)} in all</p>;
  return (
    <nav class="pagination" aria-label="Pages">
      <button type="button" class="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {fmtNumber(page)} of {fmtNumber(totalPages)} · {fmtNumber(total)} in all
      </span>
      <button type="button" class="secondary" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** The document's title for a page heading: "Links · svc console". */
export const documentTitle = (heading?: string | null) => (heading ? `${heading} · svc console` : "svc console");

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  useEffect(() => {
    document.title = documentTitle(title);
  }, [title]);
  return (
    <header class="page-header">
      <h1 tabIndex={-1}>{title}</h1>
      {children && <div class="actions">{children}</div>}
    </header>
  );
}

/** A table's column headings; `actions` adds a last column of buttons, named for screen readers only. */
export function TableHead({ columns, actions }: { columns: ComponentChildren[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th scope="col">{c}</th>
        ))}
        {actions && (
          <th scope="col">
            <span class="sr-only">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/** Shown instead of an action the role does not allow. */
export const NotAllowed = ({ role, what }: { role: string; what: string }) => (
  <p class="muted not-allowed">
    Your role ({role}) can't {what}.
  </p>
);

/**
 * A page section's data through its states: the error (with a retry), loading, empty (when `empty` is
 * given and the data is an empty list or `isEmpty` says so), then `children` with the data.
 */
export function Loaded<T>(props: {
  value: Async<T>;
  what: string;
  empty?: ComponentChildren;
  isEmpty?: (data: T) => boolean;
  children: (data: T) => ComponentChildren;
}) {
  const { value, what, empty, isEmpty, children } = props;
  if (value.state === "error") return <Failed error={value.error} retry={value.reload} />;
  if (value.data === undefined) return <Loading what={what} />;
  const none = isEmpty ? isEmpty(value.data) : Array.isArray(value.data) && value.data.length === 0;
  if (empty !== undefined && none) return <Empty>{empty}</Empty>;
  return <>{children(value.data)}</>;
}

/** A form in a card under its heading, the submit's error first; submitting hands the form to `action`. */
export function FormCard(props: {
  id: string;
  title: string;
  action: { error: ApiError | null; submit: (form: HTMLFormElement) => unknown };
  children: ComponentChildren;
}) {
  const { id, title, action, children } = props;
  return (
    <form class="card" aria-labelledby={id} onSubmit={(e) => (e.preventDefault(), action.submit(e.target as HTMLFormElement))}>
      <h2 id={id}>{title}</h2>
      <Alert error={action.error} />
      {children}
    </form>
  );
}

/** A list through Loaded's states as a table: the column headings, then the row `row` makes of each item. */
export function LoadedTable<T>(props: {
  value: Async<T[]>;
  what: string;
  empty: ComponentChildren;
  id?: string;
  columns: ComponentChildren[];
  actions?: boolean;
  row: (item: T) => ComponentChildren;
}) {
  const { value, what, empty, id, columns, actions, row } = props;
  return (
    <Loaded value={value} what={what} empty={empty}>
      {(data) => (
        <table id={id}>
          <TableHead columns={columns} actions={actions} />
          <tbody>{data.map(row)}</tbody>
        </table>
      )}
    </Loaded>
  );
}

/** A list through Loaded's states as a `<ul>` of the `<li>` that `item` makes of each item. */
export function LoadedList<T>(props: {
  value: Async<T[]>;
  what: string;
  empty?: ComponentChildren;
  id?: string;
  class: string;
  item: (item: T) => ComponentChildren;
}) {
  const { value, what, empty, id, item } = props;
  return (
    <Loaded value={value} what={what} empty={empty}>
      {(data) => (
        <ul class={props.class} id={id}>
          {data.map(item)}
        </ul>
      )}
    </Loaded>
  );
}
