// TypeBox schemas as the plain JSON Schema (2020-12) of an OpenAPI 3.1 document: named schemas ($id)
// become components referenced with $ref, and Elysia's coercing types are shown as what a client sends.
import type { TSchema } from "@sinclair/typebox";

export type Json = Record<string, unknown>;

/** Collects named schemas while operations are converted; one name, one schema. */
export class SchemaComponents {
  readonly schemas: Record<string, Json> = {};
  private readonly text = new Map<string, string>();

  /** The schema as JSON Schema, its $id'd parts replaced by references to components. */
  convert(schema: TSchema): Json {
    return this.walk(JSON.parse(JSON.stringify(schema)) as Json);
  }

  private walk(node: Json): Json {
    const plain = simplify(node);
    const id = typeof plain.$id === "string" ? plain.$id : undefined;
    const out: Json = {};
    for (const [key, value] of Object.entries(plain)) {
      if (key === "$id") continue;
      out[key] = this.child(key, value);
    }
    if (!id) return out;
    const text = JSON.stringify(out);
    const known = this.text.get(id);
    if (known !== undefined && known !== text) throw new Error(`Two different schemas are named ${id}`);
    this.text.set(id, text);
    this.schemas[id] = out;
    return { $ref: `#/components/schemas/${id}` };
  }

  private child(key: string, value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => (isSchemaList(key) && isObject(v) ? this.walk(v) : v));
    if (!isObject(value)) return value;
    if (isSchemaMap(key)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isObject(v) ? this.walk(v) : v]));
    if (isSchemaValue(key)) return this.walk(value);
    return value;
  }
}

const SCHEMA_LISTS = new Set(["anyOf", "allOf", "oneOf", "prefixItems"]);
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs"]);
const SCHEMA_VALUES = new Set(["items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"]);
const isSchemaList = (k: string) => SCHEMA_LISTS.has(k);
const isSchemaMap = (k: string) => SCHEMA_MAPS.has(k);
const isSchemaValue = (k: string) => SCHEMA_VALUES.has(k);
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Elysia's t.Numeric, t.Integer and t.BooleanString accept the number or boolean also as a string
 * (`anyOf: [{type: "string", format: "numeric"}, {type: "number"}]`): a client sends the value itself,
 * so the document shows that member. A union of literals is an enum; a record's catch-all pattern is
 * `additionalProperties`.
 */
function simplify(node: Json): Json {
  let out = node;
  const anyOf = out.anyOf as Json[] | undefined;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const coercing = anyOf.findIndex((m) => m.type === "string" && ["numeric", "integer", "boolean"].includes(String(m.format)));
    if (coercing >= 0) {
      const { anyOf: _, ...outer } = out;
      out = { ...anyOf[1 - coercing], ...outer };
    }
  }
  // t.Union of t.Literal: an enum, which the reference page offers as a choice.
  const members = out.anyOf as Json[] | undefined;
  if (
    Array.isArray(members) &&
    members.length > 1 &&
    members.every((m) => "const" in m && Object.keys(m).length === 2 && m.type === members[0].type)
  ) {
    const { anyOf: _, ...outer } = out;
    out = { type: members[0].type, enum: members.map((m) => m.const), ...outer };
  }
  const patterns = out.patternProperties as Json | undefined;
  if (patterns && Object.keys(patterns).length === 1 && "^(.*)$" in patterns) {
    const { patternProperties: _, ...rest } = out;
    out = { ...rest, additionalProperties: patterns["^(.*)$"] };
  }
  return out;
}
