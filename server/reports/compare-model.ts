// The wire side of `compare` (compare.ts): the query parameter every comparable report takes and the
// `comparison` its answer gains.
import { t } from "elysia";
import type { TObject, TProperties, TSchema } from "@sinclair/typebox";
import { COMPARE } from "./compare";

const strict = { additionalProperties: false } as const;

export const CompareParam = t.Optional(
  t.Union(
    COMPARE.map((c) => t.Literal(c)),
    {
      description:
        "Adds `comparison`: the same report over the previous period (shifted back by the period rounded up to whole weeks, so weekdays match) or over the same period 52 weeks (364 days) before",
    },
  ),
);

/** What `compare` adds to a report: the same report over the other window and the change of its figures. */
export const ComparisonOf = <T extends TSchema>(report: T, figures = "Each top-level number of the report") =>
  t.Object(
    {
      compare: t.Union(COMPARE.map((c) => t.Literal(c))),
      from: t.String({ format: "date-time", description: "The compared window's start" }),
      to: t.String({ format: "date-time", description: "The compared window's end (exclusive)" }),
      data: report,
      change: t.Record(
        t.String(),
        t.Object(
          {
            current: t.Number(),
            previous: t.Number(),
            change_percent: t.Union([t.Number(), t.Null()], {
              description: "(current − previous) ÷ previous × 100, null when previous is 0",
            }),
          },
          strict,
        ),
        { description: figures },
      ),
    },
    strict,
  );

/**
 * A report's schema with the optional `comparison` every comparable object report has. `apart`: fields
 * of the report that are not figures of its period (another product's imported days), left out of the
 * compared data.
 */
export const comparable = <P extends TProperties>(report: TObject<P>, id: string, figures?: string, apart: string[] = []) => {
  const compared = apart.length
    ? t.Object(Object.fromEntries(Object.entries(report.properties).filter(([k]) => !apart.includes(k))), strict)
    : report;
  return t.Object({ ...report.properties, comparison: t.Optional(ComparisonOf(compared, figures)) }, { $id: id, ...strict });
};

/** What a rolling-period report's document says of `compare`. */
export const ROLLING_COMPARE_DOC =
  "`compare=previous` adds `comparison`: the same report over the period's whole hours shifted back by the period rounded up to whole weeks (weekdays match), `compare=year` 364 days back; not with CSV.";
