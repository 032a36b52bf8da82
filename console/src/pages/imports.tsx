// Imports: bring links (and their click history) from Bitly, Dub, Shlink, YOURLS, Kutt, our own exports or
// any CSV (POST /imports), follow the running import with a progress bar (GET /imports/{id}, polled once
// a second), see the rows it skipped or refused; download the links list in the format it reads back.
import { useEffect, useState } from "preact/hooks";
import { API, api, ok } from "../api";
import { fmtDateTime, fmtNumber } from "../format";
import { useSession } from "../session";
import type { Import } from "../types";
import { useAsync, useSubmit } from "../ui/async";
import { Alert, Field, LoadedTable, NotAllowed, PageHeader, Select, Status } from "../ui/parts";

const SOURCES: [string, string][] = [
  ["", "Detect from the file"],
  ["bitly", "Bitly (CSV)"],
  ["dub", "Dub (CSV)"],
  ["shlink", "Shlink (short_urls.csv)"],
  ["yourls", "YOURLS (yourls_url or yourls_log as CSV)"],
  ["kutt", "Kutt (JSON of /api/v2/links)"],
  ["svc", "This product's links or clicks export"],
  ["generic", "Another CSV with a url column"],
];
const running = (i: Import) => i.status === "queued" || i.status === "running";

export function ImportsPage() {
  const { can, session } = useSession();
  const history = useAsync(() => ok(api.GET("/imports")), []);
  const [current, setCurrent] = useState<Import | null>(null);
  const [note, setNote] = useState("");

  // Follow the import until it ends.
  useEffect(() => {
    if (!current || !running(current)) return;
    const timer = setTimeout(async () => {
      try {
        const next = await ok(api.GET("/imports/{id}", { params: { path: { id: current.id } } }));
        setCurrent(next);
        if (!running(next)) {
          setNote(
            `Import finished: ${fmtNumber(next.created)} links created, ${fmtNumber(next.skipped)} skipped, ${fmtNumber(next.failed)} failed`,
          );
          history.reload();
        }
      } catch {
        setCurrent({ ...current }); // try again on the next tick
      }
    }, 1000);
    return () => clearTimeout(timer);
  }, [current]);

  const start = useSubmit(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const file = data.get("file");
    if (!(file instanceof File) || file.size === 0) throw new Error("Choose the export file first");
    const query: Record<string, string> = {};
    for (const name of ["source", "on_conflict", "domain"]) {
      const v = String(data.get(name) ?? "").trim();
      if (v) query[name] = v;
    }
    const imp = await ok(
      api.POST("/imports", {
        params: { query },
        body: file as never,
        bodySerializer: (b: unknown) => b as Blob,
        headers: { "content-type": file.type || "text/csv" },
      }),
    );
    form.reset();
    setNote(`Importing ${fmtNumber(imp.total)} rows as ${imp.source}`);
    setCurrent(imp);
    history.reload();
  });

  return (
    <>
      <PageHeader title="Imports">
        <a class="button" href={`${API}/links/export`} download="links.csv">
          Download all links (CSV)
        </a>
      </PageHeader>
      <p class="muted">
        Bring your short links from another product with the codes people already have. The file is checked whole first: nothing is created
        from a file that cannot be read. Clicks counted elsewhere are shown beside your links, never added to this product's figures.
      </p>
      {can("links:write") ? (
        <form
          class="card form-grid"
          aria-labelledby="new-import"
          onSubmit={(e) => (e.preventDefault(), start.submit(e.target as HTMLFormElement))}
        >
          <h2 id="new-import">New import</h2>
          <Alert error={start.error} />
          <Field
            label="Export file"
            name="file"
            type="file"
            accept=".csv,.json,text/csv,application/json"
            required
            error={start.error?.fields.file}
          />
          <Select label="Source" name="source" error={start.error?.fields["query.source"]}>
            {SOURCES.map(([value, label]) => (
              <option value={value}>{label}</option>
            ))}
          </Select>
          <Select label="When a short code is taken" name="on_conflict">
            <option value="skip">Skip the row</option>
            <option value="rename">Create the link under a new code</option>
          </Select>
          <Field
            label="Domain (optional)"
            name="domain"
            hint="A verified domain of yours to put every link on"
            maxLength={253}
            error={start.error?.fields["query.domain"]}
          />
          <div class="form-actions">
            <button type="submit" disabled={start.busy || (current !== null && running(current))}>
              Import
            </button>
          </div>
        </form>
      ) : (
        <NotAllowed role={session.role} what="import links" />
      )}
      <Status>{note}</Status>
      {current && <ImportProgress imp={current} />}
      <h2>Recent imports</h2>
      <LoadedTable
        value={history}
        what="Loading imports"
        empty={<p>No imports yet.</p>}
        id="imports"
        columns={["Started", "Source", "Status", "Rows", "Created", "Skipped", "Failed"]}
        row={(i) => (
          <tr>
            <td data-label="Started">{fmtDateTime(i.created_at)}</td>
            <td data-label="Source">
              {i.source}
              {i.file_name && <div class="muted">{i.file_name}</div>}
            </td>
            <td data-label="Status">{i.status}</td>
            <td data-label="Rows">
              {fmtNumber(i.processed)} / {fmtNumber(i.total)}
            </td>
            <td data-label="Created">{fmtNumber(i.created)}</td>
            <td data-label="Skipped">{fmtNumber(i.skipped)}</td>
            <td data-label="Failed">{fmtNumber(i.failed)}</td>
          </tr>
        )}
      />
    </>
  );
}

function ImportProgress({ imp }: { imp: Import }) {
  const percent = imp.total ? Math.floor((imp.processed / imp.total) * 100) : 0;
  return (
    <section class="card import-progress" aria-labelledby="import-progress" id="import-progress-card">
      <h2 id="import-progress">
        {running(imp) ? "Importing" : imp.status === "completed" ? "Import completed" : "Import failed"} ({imp.source})
      </h2>
      <label for="import-bar">
        {fmtNumber(imp.processed)} of {fmtNumber(imp.total)} rows ({percent}%)
      </label>
      <progress id="import-bar" max={imp.total || 1} value={imp.processed} />
      <p id="import-counts">
        {fmtNumber(imp.created)} created{imp.renamed ? ` (${fmtNumber(imp.renamed)} under a new code)` : ""}, {fmtNumber(imp.skipped)}{" "}
        skipped, {fmtNumber(imp.failed)} failed{imp.clicks ? `, ${fmtNumber(imp.clicks)} clicks of history` : ""}
      </p>
      {imp.errors.length > 0 && (
        <table id="import-errors">
          <caption>Rows skipped or refused{imp.errors.length >= 100 ? " (the first 100)" : ""}</caption>
          <thead>
            <tr>
              <th scope="col">Row</th>
              <th scope="col">Field</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {imp.errors.map((e) => (
              <tr>
                <td data-label="Row">{e.row}</td>
                <td data-label="Field">{e.field}</td>
                <td data-label="Why">{e.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
