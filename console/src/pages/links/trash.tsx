// The trash: deleted links that can still be restored (7 days after deletion), with the time left.
import { useState } from "preact/hooks";
import { api, ok, okPage } from "../../api";
import { fmtDateTime, fmtRelative } from "../../format";
import { useSession } from "../../session";
import type { DeletedLink } from "../../types";
import { useAsync, useSubmit } from "../../ui/async";
import { A, Alert, Loaded, Loading, PageHeader, Pagination, Status, TableHead } from "../../ui/parts";

export function TrashPage() {
  const { can } = useSession();
  const [page, setPage] = useState(1);
  const [restored, setRestored] = useState("");
  const links = useAsync(() => okPage(api.GET("/links/deleted", { params: { query: { page, per_page: 20 } } })), [page]);
  const restore = useSubmit(async (l: DeletedLink) => {
    await ok(api.POST("/links/{id}/restore", { params: { path: { id: l.id } } }));
    setRestored(`${l.short_code} is back`);
    links.reload();
  });
  return (
    <>
      <PageHeader title="Trash">
        <A to="/links" class="button secondary">
          Back to links
        </A>
      </PageHeader>
      <p class="muted">
        Deleted links stop working at once and can be restored for 7 days; after that they are gone and their codes are free again.
      </p>
      <Alert error={restore.error} />
      <Status>{restored}</Status>
      <Loaded
        value={links}
        what="Loading the trash"
        empty={
          <>
            <p>The trash is empty.</p>
          </>
        }
        isEmpty={(d) => d.items.length === 0}
      >
        {(data) => (
          <>
            <>
              <table>
                <TableHead columns={["Short link", "Destination", "Deleted", "Restorable until"]} actions />
                <tbody>
                  {data.items.map((l) => (
                    <tr>
                      <td data-label="Short link">{l.short_code}</td>
                      <td data-label="Destination" class="clip">
                        {l.original_url}
                      </td>
                      <td data-label="Deleted">{fmtDateTime(l.deleted_at)}</td>
                      <td data-label="Restorable until">
                        {fmtDateTime(l.restorable_until)} ({fmtRelative(l.restorable_until)})
                      </td>
                      <td>
                        {can("links:write") && (
                          <button type="button" class="secondary" onClick={() => restore.submit(l)} disabled={restore.busy}>
                            Restore <span class="sr-only">{l.short_code}</span>
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pagination page={data.page} totalPages={data.totalPages} total={data.total} onPage={setPage} />
            </>
          </>
        )}
      </Loaded>
    </>
  );
}
