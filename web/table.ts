import { html, type Html } from './html.js'

export interface Column {
  readonly label: string
  /** Right-aligned figures. */
  readonly numeric?: boolean
}

type Cell = Html | string | number

/**
 * A table in a box of its own. On a narrow screen its rows stack into cards (style.ts),
 * each cell after the first led by its column's label (`data-label`), so every column
 * is in sight without scrolling sideways.
 */
export function table(columns: readonly Column[], rows: readonly (readonly Cell[])[]): Html {
  const numeric = (i: number) => (columns[i]?.numeric === true ? html` class="num"` : false)
  const label = (i: number) => (i > 0 ? html` data-label="${columns[i]!.label}"` : false)
  const row = (cells: readonly Cell[]) =>
    html`<tr>${cells.map((cell, i) => html`<td${label(i)}${numeric(i)}>${cell}</td>`)}</tr>`
  return html`<div class="table"><table>
<thead><tr>${columns.map((c, i) => html`<th scope="col"${numeric(i)}>${c.label}</th>`)}</tr></thead>
<tbody>${rows.map(row)}</tbody>
</table></div>`
}
