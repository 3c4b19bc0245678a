import { asset } from './resource.js'

const css = `
:root {
  --ink: #0f172a;
  --muted: #475569;
  --line: #e2e8f0;
  --soft: #f8fafc;
  --accent: #1d4ed8;
  --accent-dark: #1e3a8a;
  --ok: #047857;
  --bad: #b91c1c;
  --code-bg: #0f172a;
  --code-ink: #e2e8f0;
  --radius: 10px;
  color-scheme: light;
}
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0;
  font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Liberation Sans", Arial, sans-serif;
  color: var(--ink);
  background: #fff;
  min-height: 100vh;
  display: flex;
  flex-direction: column;
}
a { color: var(--accent); }
a:hover { color: var(--accent-dark); }
h1, h2, h3, h4 { line-height: 1.25; margin: 1.6em 0 .5em; }
h1 { font-size: clamp(1.9rem, 4vw, 2.6rem); letter-spacing: -.02em; margin-top: 0; }
h2 { font-size: 1.6rem; letter-spacing: -.01em; }
h3 { font-size: 1.2rem; }
p, ul, ol { margin: 0 0 1em; }
code, pre, kbd { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace; font-size: .9em; }
:not(pre) > code { background: var(--soft); border: 1px solid var(--line); border-radius: 4px; padding: .05em .3em; overflow-wrap: break-word; }
td code { white-space: nowrap; }
.operation td:first-child { white-space: nowrap; }
pre {
  background: var(--code-bg);
  color: var(--code-ink);
  padding: 1rem 1.1rem;
  border-radius: var(--radius);
  overflow-x: auto;
  line-height: 1.5;
  margin: 0 0 1.2em;
}
.wrap { max-width: 68rem; margin: 0 auto; padding: 0 1.25rem; }
.narrow { max-width: 44rem; }

header.site { border-bottom: 1px solid var(--line); background: #fff; }
header.site .wrap { display: flex; align-items: center; justify-content: space-between; gap: .5rem 1rem; flex-wrap: wrap; min-height: 4rem; padding-top: .6rem; padding-bottom: .6rem; }
.brand { display: inline-flex; align-items: center; gap: .55rem; font-weight: 700; font-size: 1.15rem; color: var(--ink); text-decoration: none; }
.brand img { display: block; }
nav.main { display: flex; align-items: center; gap: 1.1rem; flex-wrap: wrap; }
nav.main a { color: var(--muted); text-decoration: none; font-weight: 500; }
nav.main a:hover, nav.main a[aria-current="page"] { color: var(--ink); }
nav.main a.button { color: #fff; }
@media (max-width: 30rem) {
  nav.main { gap: .8rem; font-size: .95rem; }
  nav.main a.button { padding: .35rem .75rem; }
}

.button, button {
  display: inline-block;
  font: inherit;
  font-weight: 600;
  background: var(--accent);
  color: #fff;
  border: 1px solid var(--accent);
  border-radius: 8px;
  padding: .55rem 1.1rem;
  text-decoration: none;
  cursor: pointer;
}
.button:hover, button:hover { background: var(--accent-dark); border-color: var(--accent-dark); color: #fff; }
.button.secondary, button.secondary { background: #fff; color: var(--accent); }
.button.secondary:hover, button.secondary:hover { background: var(--soft); color: var(--accent-dark); }
button.link { background: none; border: none; color: var(--accent); padding: 0; font-weight: 500; text-decoration: underline; }
button[disabled], button[aria-disabled="true"] { opacity: .6; cursor: progress; }
:focus-visible { outline: 3px solid #93c5fd; outline-offset: 2px; }

main { padding: 2.5rem 0 3rem; flex: 1; }
section { margin-bottom: 3rem; }
.hero { padding: 1rem 0 1.5rem; }
.lead { font-size: 1.2rem; color: var(--muted); max-width: 44rem; }
.actions { display: flex; gap: .75rem; flex-wrap: wrap; margin: 1.5rem 0; }
.facts { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; padding: 0; list-style: none; color: var(--muted); }
.facts li::before { content: "✓ "; color: var(--ok); font-weight: 700; }
.muted { color: var(--muted); }
.small { font-size: .9rem; }

.table { overflow-x: auto; margin: 0 0 1.2em; border: 1px solid var(--line); border-radius: var(--radius); }
table { border-collapse: collapse; width: 100%; font-size: .95rem; }
th, td { text-align: left; vertical-align: top; padding: .6rem .8rem; border-bottom: 1px solid var(--line); }
th { background: var(--soft); font-weight: 600; white-space: nowrap; }
tr:last-child td { border-bottom: none; }
td.num, th.num { text-align: right; white-space: nowrap; }
/* A narrow screen has no room for columns side by side: each row becomes a card, each cell led by its column's name. */
@media (max-width: 40rem) {
  .table { border: none; border-radius: 0; overflow: visible; }
  .table table, .table tbody, .table tr, .table td { display: block; }
  .table thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  .table tr { border: 1px solid var(--line); border-radius: var(--radius); padding: .6rem .9rem; margin-bottom: .6rem; }
  .table td, .table td.num, .operation .table td:first-child {
    border: none;
    padding: .15rem 0;
    text-align: left;
    white-space: normal;
  }
  .table td:empty { display: none; }
  .table td[data-label]::before {
    content: attr(data-label);
    display: block;
    font-size: .75rem;
    font-weight: 600;
    text-transform: uppercase;
    letter-spacing: .05em;
    color: var(--muted);
  }
  .table td code { white-space: normal; overflow-wrap: anywhere; }
}

.plans { display: grid; grid-template-columns: repeat(auto-fit, minmax(10.5rem, 1fr)); gap: 1rem; margin: 1.5rem 0; }
.plan { border: 1px solid var(--line); border-radius: var(--radius); padding: 1.25rem; background: #fff; display: flex; flex-direction: column; gap: .35rem; }
.plan.free { background: var(--soft); }
.plan h3 { margin: 0; font-size: 1rem; color: var(--muted); font-weight: 600; }
.plan .price { font-size: 2rem; font-weight: 700; color: var(--accent); line-height: 1.1; }
.plan p { margin: 0; color: var(--muted); font-size: .92rem; }
.note { border-left: 4px solid var(--accent); background: var(--soft); padding: .9rem 1.1rem; border-radius: 0 var(--radius) var(--radius) 0; }
.links { display: grid; grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); gap: 1rem; padding: 0; list-style: none; }
.links li { border: 1px solid var(--line); border-radius: var(--radius); padding: 1rem 1.1rem; }
.links a { font-weight: 600; }

.card { max-width: 30rem; margin: 0 auto; border: 1px solid var(--line); border-radius: var(--radius); padding: 1.75rem; box-shadow: 0 1px 3px rgba(15, 23, 42, .06); }
.card h1 { font-size: 1.7rem; }
#done-step h2 { margin-top: 1rem; color: var(--ok); }
#done-step h2::before { content: "✓ "; }
#done-step:focus { outline: none; }
@media (max-width: 30rem) { .card { border: none; box-shadow: none; padding: 0; } }
label { display: block; font-weight: 600; margin-bottom: .35rem; }
input, select {
  display: block;
  width: 100%;
  font: inherit;
  padding: .6rem .75rem;
  border: 1px solid #94a3b8;
  border-radius: 8px;
  margin-bottom: .4rem;
}
select { background: #fff; }
fieldset { border: 1px solid #cbd5e1; border-radius: 8px; padding: .5rem 1rem; margin: 0 0 1rem; }
legend { font-weight: 600; padding: 0 .25rem; }
label.choice { display: flex; align-items: center; gap: .6rem; font-weight: 400; margin: .4rem 0; }
label.choice input { width: auto; margin: 0; }
input[aria-invalid="true"] { border-color: var(--bad); }
input.code { font-size: 1.5rem; letter-spacing: .4em; font-family: ui-monospace, Menlo, Consolas, monospace; }
.hint { color: var(--muted); font-size: .9rem; margin-bottom: 1rem; }
.row { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem; margin-top: 1rem; }
.message { border-radius: 8px; padding: .75rem 1rem; margin-bottom: 1rem; }
.message.error { background: #fef2f2; border: 1px solid #fecaca; color: var(--bad); }
.message.info { background: #ecfdf5; border: 1px solid #a7f3d0; color: var(--ok); }

.docs { display: grid; gap: 2rem; }
.docs > * { min-width: 0; }
.docs h1 { font-size: clamp(1.7rem, 3.2vw, 2.2rem); }
.toc ul, .contents ul { list-style: none; padding: 0; margin: 0 0 1rem; }
.toc li, .contents li { margin: .2rem 0; }
.toc h2, .contents h2 {
  font-size: .8rem;
  text-transform: uppercase;
  letter-spacing: .06em;
  color: var(--muted);
  margin: 1rem 0 .4rem;
}
.toc a, .contents a { text-decoration: none; font-size: .93rem; }
/* The contents: a closed disclosure under the title on a narrow screen, a sidebar on a wide one. */
.toc { display: none; }
.contents { border: 1px solid var(--line); border-radius: var(--radius); padding: .6rem 1rem; margin: 0 0 2rem; }
.contents summary { cursor: pointer; font-weight: 600; }
.operation { border-top: 1px solid var(--line); padding-top: 1.5rem; margin-top: 2rem; }
.operation h3 { display: flex; flex-wrap: wrap; align-items: center; gap: .6rem; margin-top: 0; font-size: 1.15rem; }
.operation h3 code { background: none; border: none; padding: 0; font-size: 1rem; overflow-wrap: anywhere; }
.operation h4 { font-size: 1rem; margin: 1.3em 0 .5em; }
.method { font: 700 .75rem/1 ui-monospace, Menlo, Consolas, monospace; padding: .35rem .5rem; border-radius: 5px; color: #fff; background: var(--ok); }
.method.post { background: var(--accent); }
.meta { display: flex; flex-wrap: wrap; gap: .5rem; padding: 0; list-style: none; margin: 0 0 1em; }
.meta li { background: var(--soft); border: 1px solid var(--line); border-radius: 999px; padding: .1rem .7rem; font-size: .88rem; }
.tag-description { color: var(--muted); }
@media (min-width: 60rem) {
  .docs { grid-template-columns: 15rem minmax(0, 1fr); }
  .toc { display: block; position: sticky; top: 1rem; align-self: start; }
  .toc { max-height: calc(100vh - 2rem); overflow-y: auto; }
  .contents { display: none; }
}

.explore .fields { display: grid; grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr)); gap: .25rem 1rem; }
#key-box { margin: .5rem 0 1rem; }
#key-box summary { cursor: pointer; font-weight: 600; color: var(--accent); margin-bottom: .5rem; }
.account { font-weight: 600; min-height: 1.6em; }
.panel { border-top: 1px solid var(--line); padding-top: 1.25rem; margin-bottom: 1.5rem; }
.panel-head { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: .5rem 1rem; }
.panel-head h2 { margin: 0 0 .5rem; }
.credits { background: var(--soft); border: 1px solid var(--line); border-radius: 999px; padding: .1rem .7rem; font-size: .88rem; }
.state:empty { display: none; }
.panel figure { margin: 0 0 1.5rem; }
.panel h3 { margin: .5rem 0 0; font-size: 1.05rem; }
.panel figure { display: grid; gap: .75rem 1.5rem; }
.panel figure > * { min-width: 0; }
/* The explorer draws each chart for the width of its box (down to a 320 px screen's), so its text keeps its size. */
.chart { overflow-x: auto; border: 1px solid var(--line); border-radius: var(--radius); }
.chart svg { display: block; width: 100%; max-width: 40rem; height: auto; }
figcaption { color: var(--muted); font-size: .95rem; }
.takeaway { color: var(--ink); font-size: 1rem; margin: 0; }
.figures summary, .glossary summary { cursor: pointer; color: var(--accent); }
.figures p { color: var(--muted); font-size: .92rem; }
.glossary { margin: 0 0 1rem; }
.glossary dl { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: .2rem 1rem; margin: .5rem 0; }
.glossary dl div { display: flex; gap: .5rem; }
.glossary dt { font-weight: 600; }
.glossary dd { margin: 0; color: var(--muted); }
.message.notice { background: #eff6ff; border: 1px solid #bfdbfe; color: var(--accent-dark); }
.headline { border: 1px solid var(--line); border-radius: var(--radius); background: var(--soft); padding: 1rem 1.25rem; margin: 0 0 1.5rem; }
.headline .eyebrow { margin: 0; color: var(--muted); font-size: .88rem; text-transform: uppercase; letter-spacing: .04em; }
.headline h2 { margin: .2rem 0; }
.headline .range { font-size: 1.6rem; font-weight: 700; margin: .2rem 0; }
.headline .sentence { margin: 0; max-width: 44rem; }
.state.unloaded { color: var(--muted); }
.regions { max-width: 40rem; overflow-x: auto; }
.regions table { font-size: .88rem; }
.regions th, .regions td { padding: .35rem .4rem; }
.regions th { white-space: normal; }
.regions td:first-child { overflow-wrap: anywhere; }
.regions caption { text-align: left; color: var(--muted); padding: 0 0 .4rem; }
@media (min-width: 60rem) {
  .panel figure { grid-template-columns: minmax(0, 40rem) minmax(14rem, 1fr); align-items: start; }
  .panel figure h3, .panel figure .takeaway { grid-column: 1 / -1; }
}

footer.site { border-top: 1px solid var(--line); background: var(--soft); padding: 1.5rem 0; font-size: .92rem; color: var(--muted); }
footer.site nav { display: flex; flex-wrap: wrap; gap: .4rem 1.2rem; margin-bottom: .5rem; }
`

/** The one stylesheet of every page. */
export const STYLESHEET = asset('site', 'css', css.trimStart(), 'text/css; charset=utf-8')
