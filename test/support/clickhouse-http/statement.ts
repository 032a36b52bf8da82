// Just enough of ClickHouse's lexer for what the HTTP layer decides before running a statement: its
// first keyword, its FORMAT clause, where an INSERT's inline data begins, and whether a second statement
// follows (a real server refuses multi-statements over HTTP; chDB would run them).

export interface StatementInfo {
  /** The first word, upper-cased (INSERT, SELECT, SET, …); "" for an empty query. */
  keyword: string;
  /** The format named by a top-level FORMAT clause. */
  format?: string;
  /** INSERT … FORMAT x: the offset (in characters) where the inline data begins. */
  dataAt?: number;
  /** Offset of a second statement after a top-level `;`. */
  secondStatementAt?: number;
}

const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
// Words that can follow a column or alias named `format`, which no format is called.
const KEYWORDS = new Set(
  "FROM WHERE PREWHERE AS GROUP ORDER LIMIT OFFSET SETTINGS UNION HAVING JOIN INNER LEFT RIGHT FULL CROSS ARRAY WITH AND OR NOT IN IS LIKE BETWEEN FINAL SAMPLE ON USING WINDOW QUALIFY INTO VALUES SELECT ASC DESC".split(
    " ",
  ),
);
const SPACE = /\s+/y;

export function scanStatement(sql: string): StatementInfo {
  const info: StatementInfo = { keyword: "" };
  let depth = 0;
  let afterSemicolon = -1;
  let previousWord = "";
  for (let i = 0; i < sql.length; ) {
    const skipped = skipTrivia(sql, i);
    if (skipped !== i) {
      i = skipped;
      continue;
    }
    const c = sql[i];
    if (afterSemicolon >= 0 && c !== ";") {
      info.secondStatementAt = i;
      return info;
    }
    if (c === "'" || c === '"' || c === "`") {
      i = skipQuoted(sql, i, c);
      previousWord = "";
      continue;
    }
    WORD.lastIndex = i;
    const word = WORD.exec(sql)?.[0];
    if (word) {
      const upper = word.toUpperCase();
      if (!info.keyword) info.keyword = upper;
      if (depth === 0 && previousWord === "FORMAT" && !KEYWORDS.has(upper)) {
        info.format = word;
        if (info.keyword === "INSERT") {
          info.dataAt = dataStart(sql, i + word.length);
          return info;
        }
      }
      previousWord = upper;
      i += word.length;
      continue;
    }
    if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") depth--;
    else if (c === ";" && depth === 0) afterSemicolon = i;
    previousWord = "";
    i++;
  }
  return info;
}

/** Inline data starts after the format name, past blanks and one line break. */
function dataStart(sql: string, i: number): number {
  while (sql[i] === " " || sql[i] === "\t") i++;
  if (sql[i] === "\r" && sql[i + 1] === "\n") return i + 2;
  if (sql[i] === "\n") return i + 1;
  return i;
}

function skipTrivia(sql: string, i: number): number {
  SPACE.lastIndex = i;
  if (SPACE.test(sql)) return SPACE.lastIndex;
  if (sql.startsWith("--", i) || sql.startsWith("# ", i) || sql.startsWith("#!", i)) {
    const end = sql.indexOf("\n", i);
    return end < 0 ? sql.length : end + 1;
  }
  if (sql.startsWith("/*", i)) {
    let depth = 0;
    for (let j = i; j < sql.length - 1; j++) {
      if (sql.startsWith("/*", j)) {
        depth++;
        j++;
      } else if (sql.startsWith("*/", j)) {
        depth--;
        j++;
        if (depth === 0) return j + 1;
      }
    }
    return sql.length;
  }
  return i;
}

/** A string literal or quoted identifier: backslash escapes, and the quote doubled. */
function skipQuoted(sql: string, i: number, quote: string): number {
  for (let j = i + 1; j < sql.length; j++) {
    if (sql[j] === "\\") j++;
    else if (sql[j] === quote) {
      if (sql[j + 1] === quote) j++;
      else return j + 1;
    }
  }
  return sql.length;
}
