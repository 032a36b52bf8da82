// Values as ClickHouse's input formats read them fastest.

/** "YYYY-MM-DD hh:mm:ss.mmm" (UTC), the text ClickHouse reads fastest into DateTime64(3, 'UTC'). */
export const chTime = (ms: number) => new Date(ms).toISOString().slice(0, 23).replace("T", " ");

/** ClickHouse's DateTime64 text ("2024-01-02 03:04:05.678") as ISO 8601. */
export const chTimeToIso = (s: string) => `${s.replace(" ", "T")}Z`;

/** chTime's text back to epoch ms, without Date's parser (the journey rows' times, as RowBinary takes them). */
export function chTimeMs(s: string): number {
  if (s.length !== 23 || s[4] !== "-" || s[10] !== " " || s[19] !== ".") throw new Error(`not a ClickHouse time: ${JSON.stringify(s)}`);
  const d = (i: number, n: number) => {
    let v = 0;
    for (let k = i; k < i + n; k++) v = v * 10 + s.charCodeAt(k) - 48;
    return v;
  };
  return Date.UTC(d(0, 4), d(5, 2) - 1, d(8, 2), d(11, 2), d(14, 2), d(17, 2), d(20, 3));
}
