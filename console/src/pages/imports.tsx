// Imports: bring links (and their click history) from Bitly, Dub, Shlink, YOURLS, Kutt, our own exports or
// any CSV (POST /imports), follow the running import with a progress bar (GET /imports/{id}, polled once
// a second), see the rows it skipped or refused; download the links list in the format it reads back.
// Plausible's full export (a zip, recognised by its first bytes as the API does) goes into one link,
// chosen with a link picker; it is imported in the request, so its answer is already completed.
import { useEffect, useState } from "preact/hooks";
import { API, api, ok } from "../api";
import { fmtDateTime, fmtNumber } from "../format";
import { useSession } from "../session";
import type { Import, Link } from "../types";
import { useAsync, useSubmit } from "../ui/async";
import { LinkPicker } from "../ui/link-picker";
import { A, Alert, Field, LoadedTable, NotAllowed, PageHeader, Select, Status } from "../ui/parts";

const SOURCES: [string, string][] = [
  ["", "Detect from the file"],
  ["bitly", "Bitly (CSV)"],
  ["dub", "Dub (CSV)"],
  ["shlink", "Shlink (short_urls.csv)"],
  ["yourls", "YOURLS (yourls_url or yourls_log as CSV)"],
  ["kutt", "Kutt (JSON of /api/v2/links)"],
  ["svc", "This product's links or clicks export"],
  ["generic", "Another CSV with a url column"],
  ["plausible", "Plausible (full export, a zip)"],
];
const running = (i: Import) => i.status === "queued" || i.status === "running";

/** Whether the file is a zip archive: its first bytes are a zip's local file header (PK\3\4), as the API checks. */
async function isZip(file: File) {
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  return head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

export function ImportsPage() {
  const { can, session } = useSession();
  const history = useAsync(() => ok(api.GET("/imports")), []);
  const [current, setCurrent] = useState<Import | null>(null);
  const [note, setNote] = useState("");
  const [source, setSource] = useState("");
  const [zip, setZip] = useState(false);
  const [link, setLink] = useState<Link | null>(null);
  // The link the last Plausible import went into, for the way to its journey view.
  const [into, setInto] = useState<Link | null>(null);
  const plausible = source === "plausible" || (source === "" && zip);
  // The picker goes when the file is not Plausible's; a link picked in it goes with it.
  useEffect(() => {
    if (!plausible) setLink(null);
  }, [plausible]);

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
    if (plausible && link) query.link_id = link.id;
    const imp = await ok(
      api.POST("/imports", {
        params: { query },
        body: file as never,
        bodySerializer: (b: unknown) => b as Blob,
        headers: { "content-type": file.type || (zip ? "application/zip" : "text/csv") },
      }),
    );
    form.reset();
    setSource("");
    setZip(false);
    setLink(null);
    setInto(imp.source === "plausible" ? link : null);
    setNote(
      imp.source === "plausible"
        ? `Imported ${fmtNumber(imp.total)} rows of Plausible's daily figures into ${link?.short_code ?? "the link"}`
        : `Importing ${fmtNumber(imp.total)} rows as ${imp.source}`,
    );
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
        from a file that cannot be read. Clicks counted elsewhere are shown beside your links, never added to this product's figures. A
        Plausible export (the zip it mails you) goes into one link you choose: its days are shown on that link's journeys.
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
            accept=".csv,.json,.zip,text/csv,application/json,application/zip"
            required
            error={start.error?.fields.file}
            onChange={async (e) => {
              const file = (e.target as HTMLInputElement).files?.[0];
              setZip(file ? await isZip(file) : false);
            }}
          />
          <Select
            label="Source"
            name="source"
            value={source}
            onChange={(e) => setSource((e.target as HTMLSelectElement).value)}
            error={start.error?.fields.source}
          >
            {SOURCES.map(([value, label]) => (
              <option value={value}>{label}</option>
            ))}
          </Select>
          {plausible ? (
            <LinkPicker
              label="Link for the imported days"
              hint="Plausible's figures are shown on this link's journeys, for the days before its own data"
              error={start.error?.fields.link_id}
              onPick={(l) => {
                setLink(l);
                if (l && start.error?.fields.link_id) start.setError(null);
              }}
            />
          ) : (
            <>
              <Select label="When a short code is taken" name="on_conflict">
                <option value="skip">Skip the row</option>
                <option value="rename">Create the link under a new code</option>
              </Select>
              <Field
                label="Domain (optional)"
                name="domain"
                hint="A verified domain of yours to put every link on"
                maxLength={253}
                error={start.error?.fields.domain}
              />
            </>
          )}
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
      {current && <ImportProgress imp={current} into={into} />}
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

function ImportProgress({ imp, into }: { imp: Import; into: Link | null }) {
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
      {imp.source === "plausible" ? (
        <p id="import-counts">
          {fmtNumber(imp.total)} rows of daily figures imported
          {into && (
            <>
              {" "}
              into <A to={`/links/${into.id}`}>{into.short_code}</A>: see its journeys
            </>
          )}
        </p>
      ) : (
        <ImportCounts imp={imp} />
      )}
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

const ImportCounts = ({ imp }: { imp: Import }) => (
  <p id="import-counts">
    {fmtNumber(imp.created)} created{imp.renamed ? ` (${fmtNumber(imp.renamed)} under a new code)` : ""}, {fmtNumber(imp.skipped)} skipped,{" "}
    {fmtNumber(imp.failed)} failed{imp.clicks ? `, ${fmtNumber(imp.clicks)} clicks of history` : ""}
  </p>
);
