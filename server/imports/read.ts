// What other features may read of imports: the raw clicks imported per link (link stats report them
// beside, never inside, our own counts), and a link's imported daily aggregates (Plausible's export) as
// the journey and conversion summaries show them, beside their own figures.
export { importedClickCounts } from "./repository";
export {
  importedConversionFigures,
  importedJourneyFigures,
  importedDaysSql,
  type ImportedConversionFigures,
  type ImportedJourneyFigures,
} from "./plausible-query";
