// Spreadsheet formula neutralisation (docs/exports.md "Escaping"): a cell that starts with =, +, -, @,
// a tab or a carriage return is run as a formula by Excel, LibreOffice and Google Sheets (OWASP's "CSV
// injection"); a leading apostrophe makes them show it as text. Numbers we write ourselves are never
// touched: only text that came from someone else.
export const FORMULA_START = /^[=+\-@\t\r]/;

export const neutralizeFormula = (text: string) => (FORMULA_START.test(text) ? `'${text}` : text);
