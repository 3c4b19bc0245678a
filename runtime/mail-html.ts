/**
 * The HTML part of a message, made from its text part so the two always say the same:
 * paragraphs (blocks between blank lines) as <p>, indented blocks (a command to paste)
 * as <pre>, and web addresses as links. Everything else is escaped text.
 */
export function mailHtml(subject: string, text: string): string {
  const blocks = text
    .split(/\n{2,}/)
    .map((block) => block.replace(/^\n+|\n+$/g, ''))
    .filter((block) => block.length > 0)
    .map((block) =>
      /^ {2}/.test(block)
        ? `<pre style="background:#f4f4f4;padding:8px;white-space:pre-wrap;word-break:break-all">${escape(block.replace(/^ {2}/gm, ''))}</pre>`
        : `<p>${linked(block).replace(/\n/g, '<br>\n')}</p>`,
    )
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${escape(subject)}</title></head>`,
    '<body style="font-family:sans-serif;font-size:15px;line-height:1.5;max-width:640px">',
    ...blocks,
    '</body>',
    '</html>',
    '',
  ].join('\n')
}

const ADDRESS = /https?:\/\/[^\s<>"']+[^\s<>"'.,:;)]/g

function linked(text: string): string {
  let html = ''
  let from = 0
  for (const match of text.matchAll(ADDRESS)) {
    html += `${escape(text.slice(from, match.index))}<a href="${escape(match[0])}">${escape(match[0])}</a>`
    from = match.index + match[0].length
  }
  return html + escape(text.slice(from))
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
