// ClickHouse's exceptions as its HTTP interface shows them: the text body, the code header, and the
// status a real server chooses from the exception's name (its exceptionCodeToHTTPStatus table).

export class ClickhouseException extends Error {
  constructor(
    readonly code: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }

  /** An engine error, whose message already reads `Code: N. DB::Exception: … (TYPE)`. */
  static fromEngine(err: unknown): ClickhouseException {
    const message = err instanceof Error ? err.message : String(err);
    const code = Number(/^Code: (\d+)\./.exec(message)?.[1] ?? 1001);
    const types = [...message.matchAll(/\(([A-Z][A-Z0-9_]{2,})\)/g)];
    const type = types.at(-1)?.[1] ?? "STD_EXCEPTION";
    return new ClickhouseException(code, type, message.replace(/^Code: \d+\. DB::Exception: /, ""));
  }

  /** The response body: one line, as a real server writes it. */
  body(version: string): string {
    const text = `Code: ${this.code}. DB::Exception: ${this.message}`;
    if (text.includes("(version ")) return `${text}\n`;
    const sep = text.trimEnd().endsWith(`(${this.type})`) ? "" : ` (${this.type})`;
    return `${text.trimEnd()}${sep} (version ${version})\n`;
  }

  get status(): number {
    return STATUS_BY_TYPE.get(this.type) ?? 500;
  }
}

export const codes = {
  NOT_IMPLEMENTED: 48,
  SYNTAX_ERROR: 62,
  UNKNOWN_SETTING: 115,
  READONLY: 164,
  CANNOT_DECOMPRESS: 271,
  AUTHENTICATION_FAILED: 516,
} as const;

export const fail = (type: keyof typeof codes, message: string) => new ClickhouseException(codes[type], type, message);

const byStatus: Record<number, string[]> = {
  401: ["REQUIRED_PASSWORD"],
  403: ["UNKNOWN_USER", "WRONG_PASSWORD", "AUTHENTICATION_FAILED", "SET_NON_GRANTED_ROLE", "ACCESS_DENIED"],
  400: [
    "BAD_ARGUMENTS",
    "CANNOT_COMPILE_REGEXP",
    "CANNOT_PARSE_TEXT",
    "CANNOT_PARSE_ESCAPE_SEQUENCE",
    "CANNOT_PARSE_QUOTED_STRING",
    "CANNOT_PARSE_DATE",
    "CANNOT_PARSE_DATETIME",
    "CANNOT_PARSE_NUMBER",
    "CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING",
    "CANNOT_PARSE_IPV4",
    "CANNOT_PARSE_IPV6",
    "CANNOT_PARSE_INPUT_ASSERTION_FAILED",
    "CANNOT_PARSE_UUID",
    "DUPLICATE_COLUMN",
    "ILLEGAL_COLUMN",
    "UNKNOWN_ELEMENT_IN_AST",
    "UNKNOWN_TYPE_OF_AST_NODE",
    "THERE_IS_NO_COLUMN",
    "TOO_DEEP_AST",
    "TOO_BIG_AST",
    "UNEXPECTED_AST_STRUCTURE",
    "SYNTAX_ERROR",
    "INCORRECT_DATA",
    "TYPE_MISMATCH",
    "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE",
  ],
  404: [
    "UNKNOWN_TABLE",
    "UNKNOWN_FUNCTION",
    "UNKNOWN_IDENTIFIER",
    "UNKNOWN_TYPE",
    "UNKNOWN_STORAGE",
    "UNKNOWN_DATABASE",
    "UNKNOWN_SETTING",
    "UNKNOWN_DIRECTION_OF_SORTING",
    "UNKNOWN_AGGREGATE_FUNCTION",
    "UNKNOWN_FORMAT",
    "UNKNOWN_DATABASE_ENGINE",
    "UNKNOWN_TYPE_OF_QUERY",
    "UNKNOWN_ROLE",
  ],
  413: ["QUERY_IS_TOO_LARGE"],
  501: ["NOT_IMPLEMENTED"],
  503: ["SOCKET_TIMEOUT", "CANNOT_OPEN_FILE", "CANNOT_SCHEDULE_TASK"],
  411: ["HTTP_LENGTH_REQUIRED"],
  408: ["TIMEOUT_EXCEEDED"],
  415: ["UNSUPPORTED_MEDIA_TYPE"],
};
const STATUS_BY_TYPE = new Map(Object.entries(byStatus).flatMap(([status, types]) => types.map((t) => [t, Number(status)] as const)));
