import { Marked } from 'marked'
import { Html, html } from './html.js'

/**
 * The OpenAPI document's descriptions are Markdown (`code`, *emphasis*, links). Rendered
 * by marked, inline, when the pages are made; markup written in them is shown as text,
 * never passed through.
 */
const markdown = new Marked({
  async: false,
  renderer: {
    html: ({ text }) => html`${text}`.text,
  },
})

/** A description of the document as markup. */
export function prose(text: string): Html {
  return new Html(markdown.parseInline(text) as string)
}
