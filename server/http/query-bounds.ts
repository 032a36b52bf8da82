// Elysia checks a coerced query number's bounds on the value alone and names the field "property",
// so query numbers are declared without bounds and their ranges checked here, naming the field.
import { validationError } from "../errors";

export type QueryBounds = Record<string, readonly [min: number, max: number]>;

/** The query itself; 400 naming `query.<name>` when a number in it is not an integer within its range. */
export function checkQueryBounds<T extends Record<string, unknown>>(query: T, bounds: QueryBounds): T {
  for (const [name, [min, max]] of Object.entries(bounds)) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      throw validationError(`query.${name}`, `must be an integer from ${min} to ${max}`);
    }
  }
  return query;
}
