// Where the link has pointed (GET /links/{id}/destinations): shown once its destination has changed.
import { api, ok } from "../../api";
import { fmtDateTime } from "../../format";
import { useAsync } from "../../ui/async";
import { TableHead } from "../../ui/parts";

export function Destinations({ linkId, updatedAt }: { linkId: string; updatedAt: string }) {
  const list = useAsync(() => ok(api.GET("/links/{id}/destinations", { params: { path: { id: linkId } } })), [linkId, updatedAt]);
  if (!list.data || list.data.length < 2) return null;
  return (
    <>
      <h3 id="link-destinations">Earlier destinations</h3>
      <table aria-labelledby="link-destinations" id="destinations">
        <TableHead columns={["Destination", "From", "Until"]} />
        <tbody>
          {list.data.map((d) => (
            <tr>
              <td data-label="Destination" class="clip">
                {d.url}
              </td>
              <td data-label="From">{fmtDateTime(d.from)}</td>
              <td data-label="Until">{d.until ? fmtDateTime(d.until) : "now"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
