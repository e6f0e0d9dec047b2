/** A Markdown table; numeric columns right-aligned. */
export function table(head: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`
  // right-align the columns that hold only numbers
  const numeric = head.map((_, i) => i > 0 && rows.every((r) => /^[\d.]+$/.test(String(r[i]))))
  return [line(head), line(numeric.map((n) => (n ? '---:' : '---'))), ...rows.map(line)].join('\n')
}
