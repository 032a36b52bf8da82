// What other features may read of imports: the raw clicks imported per link (link stats report them
// beside, never inside, our own counts).
export { importedClickCounts } from "./repository";
