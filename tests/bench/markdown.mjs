// markdown.mjs - the benchmark report's tables: a header row, the first
// column left-aligned and the figures right-aligned, then a blank line.
export function markdownTable(head, rows) {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map((h, i) => (i ? '---:' : ':---')).join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
  ];
}
