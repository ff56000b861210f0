// markdown.mjs - the benchmark report's tables: a header row, the first
// `left` columns (words) left-aligned and the figures right-aligned, then a
// blank line.
export function markdownTable(head, rows, { left = 1 } = {}) {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map((h, i) => (i >= left ? '---:' : ':---')).join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
  ];
}
