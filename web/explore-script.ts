/*
 * The explorer page's behaviour, in plain browser JavaScript (an ES module): suggestions
 * from the free catalogue as the visitor types, then one API call per part of the view,
 * one after another in the page's order, each answer drawn by the same chart modules
 * GET /v1/chart runs on the server, the price part's also as the headline. Every failure
 * shows the API's own message, and a refusal that has a way out (registration, a top-up)
 * links to it in that part's place; past the demo's calls, the parts left are not asked
 * and one note says so.
 */
export const EXPLORE_SCRIPT = `import { EXPLORER_CHARTS } from '../charts/explorer.js'
import { signedPct } from '../charts/svg.js'
import { headline } from '../charts/takeaways.js'
import { count, counted } from '../format/amounts.js'
import { BODY_IN_ENGLISH as BODY_NAMES } from '../format/vocabulary.js'

const $ = (id) => document.getElementById(id)
const form = $('explore')
const api = form.dataset.api
const keyHeader = form.dataset.keyHeader
const keyField = $('key')
const error = $('error')
const account = $('account')
const panels = [...document.querySelectorAll('#view .panel')]
const KEY_STORE = 'carmarket.key'

// The tab's storage, where a browser allows it (one that blocks it still gets a page that works, forgetting on reload).
const stored = (change) => {
  try {
    return change(sessionStorage)
  } catch {
    return null
  }
}
keyField.value = stored((storage) => storage.getItem(KEY_STORE)) ?? ''
if (keyField.value !== '') $('key-box').open = true
// Come from registration (/explore#key): the key box open and ready for the key just e-mailed.
if (location.hash === '#key') {
  $('key-box').open = true
  keyField.focus()
}
keyField.addEventListener('change', () => {
  const key = keyField.value.trim()
  stored((storage) => (key === '' ? storage.removeItem(KEY_STORE) : storage.setItem(KEY_STORE, key)))
})
$('forget-key').addEventListener('click', () => {
  keyField.value = ''
  stored((storage) => storage.removeItem(KEY_STORE))
  keyField.focus()
})

/** A GET of the API: the answer's envelope (or one made up when there is none) and its headers. */
const call = async (path, params, key) => {
  const headers = { Accept: 'application/json' }
  if (key !== '') headers[keyHeader] = key
  try {
    const response = await fetch(api + path + (params === undefined ? '' : '?' + params), { headers })
    const answer = await response.json().catch(() => null)
    if (answer !== null && (answer.status === 'success' || (answer.error && typeof answer.error.message === 'string')))
      return { answer, headers: response.headers }
    return {
      answer: { status: 'error', error: { code: 'HTTP_' + response.status, message: 'The service answered with status ' + response.status + '. Please try again.' } },
      headers: response.headers,
    }
  } catch {
    return {
      answer: { status: 'error', error: { code: 'UNREACHABLE', message: 'The service could not be reached. Check your connection and try again.' } },
      headers: new Headers(),
    }
  }
}

// Suggestions: the catalogue's makes at once, a make's models (and a model's years) as they are chosen.
const fill = (list, values) => list.replaceChildren(...values.map((value) => Object.assign(document.createElement('option'), { value: String(value) })))
let models = []
// The make whose models are suggested (or on their way): leaving the field after typing it asks nothing again.
let modelsOf = ''
let typing
const suggestMakes = async () => {
  const { answer } = await call('/v1/catalog/makes', undefined, '')
  if (answer.status === 'success') fill($('makes'), answer.data.makes.map((m) => m.make))
}
const suggestModels = async () => {
  clearTimeout(typing)
  const make = $('make').value.trim()
  if (make === modelsOf) return
  modelsOf = make
  models = []
  fill($('models'), [])
  fill($('years'), [])
  if (make === '') return
  const { answer } = await call('/v1/catalog/models', new URLSearchParams({ make }), '')
  if (modelsOf !== make) return
  if (answer.status !== 'success') {
    // Not found, or not reached: asked again when the field next changes.
    modelsOf = ''
    return
  }
  models = answer.data.models
  fill($('models'), models.map((m) => m.model))
  suggestYears()
}
const suggestYears = () => {
  const name = $('model').value.trim().toLowerCase()
  const model = models.find((m) => m.model.toLowerCase() === name)
  fill($('years'), model === undefined ? [] : [...model.years].reverse())
  suggestVersions()
}
// The versions and body types of the chosen make, model and year, once the data give any: offered to narrow by.
let versionsOf = ''
const offer = (box, shown) => {
  box.hidden = !shown
  if (!shown) for (const input of box.querySelectorAll('[name]')) input.value = ''
}
const suggestVersions = async () => {
  const asked = new URLSearchParams({ make: $('make').value.trim(), model: $('model').value.trim(), year: $('year').value.trim() })
  if (asked.toString() === versionsOf) return
  versionsOf = asked.toString()
  const complete = [...asked.values()].every((value) => value !== '')
  const { answer } = complete ? await call('/v1/catalog/versions', asked, '') : { answer: { status: 'error' } }
  if (versionsOf !== asked.toString()) return
  const data = answer.status === 'success' ? answer.data : { versions: [], body_types: [] }
  fill($('versions'), data.versions.map((v) => v.version))
  offer($('version-field'), data.versions.length > 0)
  const body = $('body_type')
  const chosen = body.value
  body.replaceChildren(
    Object.assign(document.createElement('option'), { value: '', textContent: 'Any' }),
    ...data.body_types.map((b) => Object.assign(document.createElement('option'), { value: b.body_type, textContent: BODY_NAMES[b.body_type] + ' (' + count(b.listings) + ')' })),
  )
  body.value = data.body_types.some((b) => b.body_type === chosen) ? chosen : ''
  offer($('body-field'), data.body_types.length > 0)
}
$('make').addEventListener('input', () => {
  clearTimeout(typing)
  typing = setTimeout(suggestModels, 250)
})
$('make').addEventListener('change', suggestModels)
$('model').addEventListener('input', suggestYears)
$('year').addEventListener('change', suggestVersions)
suggestMakes()

const say = (box, content) => {
  box.replaceChildren(...content)
  box.hidden = content.length === 0
}
const link = (href, text) => Object.assign(document.createElement('a'), { href, textContent: text })

/** Where a refusal leads: registration for the demo limit, the plans for credits. */
const wayOut = (e) => {
  if (typeof e.register_url === 'string') return [' ', link(e.register_url, 'Register for a free key')]
  if (typeof e.top_up_url === 'string') return [' ', link(e.top_up_url, 'Top up your credits')]
  return []
}

const demoLeft = (headers) => {
  const left = /"demo";\\s*r=(\\d+)/.exec(headers.get('RateLimit') ?? '')
  const quota = /"demo";\\s*q=(\\d+)/.exec(headers.get('RateLimit-Policy') ?? '')
  return left === null ? undefined : { left: Number(left[1]), quota: quota === null ? undefined : Number(quota[1]) }
}

const regionsTable = (panel, data) => {
  const box = panel.querySelector('.regions')
  if (box === null) return
  const cell = (text, numeric) => {
    const td = document.createElement('td')
    td.textContent = text
    if (numeric) td.className = 'num'
    return td
  }
  const rows = [...data.regions]
    .sort((a, b) => a.avg_price - b.avg_price)
    .map((r) => {
      const tr = document.createElement('tr')
      tr.append(cell(r.region, false), cell(count(r.avg_price), true), cell(signedPct(r.vs_national_pct), true), cell(count(r.sample_size), true))
      return tr
    })
  box.querySelector('tbody').replaceChildren(...rows)
  box.hidden = false
}

/**
 * Draws each chart of a panel from its answer: its takeaway above it, its figures in words
 * in a disclosure beside it (and in the image's own description, for screen readers).
 */
const draw = (panel, data, asked) => {
  drawn.set(panel, { data, asked })
  for (const figure of panel.querySelectorAll('figure')) {
    // Shown first, so that the chart's box has the width the chart is drawn for.
    figure.hidden = false
    const chart = figure.querySelector('.chart')
    chart.hidden = false
    const { svg, takeaway, words } = EXPLORER_CHARTS[figure.dataset.chart](data, { ...asked, width: chart.clientWidth })
    if (svg === undefined) chart.replaceChildren()
    else chart.replaceChildren(document.importNode(new DOMParser().parseFromString(svg, 'image/svg+xml').documentElement, true))
    chart.hidden = svg === undefined
    figure.querySelector('.takeaway').textContent = takeaway
    figure.querySelector('.words').textContent = words
    figure.querySelector('.figures').hidden = svg === undefined
  }
  regionsTable(panel, data)
}

/** Each drawn panel's answer, to draw again for a new width (a phone turned, a window resized). */
const drawn = new Map()
let resizing
let drawnFor = window.innerWidth
window.addEventListener('resize', () => {
  clearTimeout(resizing)
  resizing = setTimeout(() => {
    if (window.innerWidth === drawnFor) return
    drawnFor = window.innerWidth
    for (const [panel, { data, asked }] of drawn) if (!panel.querySelector('figure').hidden) draw(panel, data, asked)
  }, 150)
})

const headlineBox = $('headline')
/** The car asked about in one card: its market value range and how sure it is, and the verdict on its asking price. */
const showHeadline = (data) => {
  const { car, range, sentence } = headline(data)
  headlineBox.querySelector('h2').textContent = car
  headlineBox.querySelector('.range').textContent = range
  headlineBox.querySelector('.sentence').textContent = sentence
  headlineBox.hidden = false
}

const reset = (panel, text) => {
  drawn.delete(panel)
  panel.querySelector('.state').textContent = text
  panel.querySelector('.state').className = 'state muted'
  for (const figure of panel.querySelectorAll('figure')) figure.hidden = true
  const table = panel.querySelector('.regions')
  if (table !== null) table.hidden = true
}

/** A part the view did not ask for: no error of the visitor's, so said quietly. */
const unloaded = (panel, text) => {
  const state = panel.querySelector('.state')
  state.className = 'state unloaded'
  state.textContent = text
}

const demoBox = $('demo')
const registerUrl = form.dataset.register
const demoQuota = Number(form.dataset.demoQuota)
/** The one note on the demo, when it left parts out: what it allows, and the way to see the rest. */
const demoSpent = (left, skipped) => {
  say(demoBox, [
    'The free demo answers ' + count(demoQuota) + ' market calls a day from your address' +
      (left === 0 ? ', all used now' : '') + ': ' + counted(skipped, 'part') + ' of this view ' +
      (skipped === 1 ? 'was' : 'were') + ' not asked for. ',
    link(registerUrl, 'Register for a free key'),
    ' to see the whole view (or paste a key under "Use an API key").',
  ])
}

const refuse = (panel, e) => {
  const state = panel.querySelector('.state')
  state.className = 'state message ' + (e.code === 'INSUFFICIENT_DATA' ? 'info' : 'error')
  state.replaceChildren(e.message, ...wayOut(e))
}

const field = (name) => document.getElementById(name)
/** The form's values, read once when it is sent, so that a field edited while the view loads changes nothing of it. */
const formValues = () => {
  const values = new Map()
  for (const input of form.querySelectorAll('[name]')) if (input.value.trim() !== '') values.set(input.name, input.value.trim())
  return values
}
/** A part's query: the form's values its operation takes, and those the page sets. */
const paramsOf = (panel, values) => {
  const params = new URLSearchParams(panel.dataset.fixed)
  for (const name of panel.dataset.parameters.split(' ')) if (values.has(name)) params.set(name, values.get(name))
  return params
}
/** Shows a failure at the form, on the field it names (or the one given), and no view. */
const atForm = (message, name) => {
  view.hidden = true
  account.textContent = ''
  say(error, [message])
  const input = typeof name === 'string' ? field(name) : null
  if (input === null) return error.focus()
  input.setAttribute('aria-invalid', 'true')
  input.setAttribute('aria-describedby', 'error')
  if (input === keyField) $('key-box').open = true
  input.focus()
}
/** What a key can hold: visible ASCII (a header can carry nothing else, and fetch refuses to try). */
const KEY_TEXT = /^[\\x21-\\x7e]+$/

const balance = async (key) => {
  const { answer } = await call('/v1/account/me', undefined, key)
  return answer
}

const view = $('view')
const button = form.querySelector('button[type=submit]')
let running = false
// The demo calls left, as the last answer that told them said: a revalidated answer (304) does not.
let demo
form.addEventListener('submit', async (event) => {
  event.preventDefault()
  if (running) return
  running = true
  // Not disabled: the button keeps the focus of a visitor who pressed it.
  button.setAttribute('aria-disabled', 'true')
  view.setAttribute('aria-busy', 'true')
  say(error, [])
  for (const input of form.querySelectorAll('[aria-invalid]')) {
    input.removeAttribute('aria-invalid')
    input.removeAttribute('aria-describedby')
  }
  try {
    await show(keyField.value.trim(), formValues())
  } finally {
    running = false
    button.removeAttribute('aria-disabled')
    view.setAttribute('aria-busy', 'false')
  }
})

const show = async (key, values) => {
  let before
  if (key !== '') {
    if (!KEY_TEXT.test(key)) return atForm('An API key is made of letters, digits, "_" and "-" only: paste it again.', 'key')
    const me = await balance(key)
    if (me.status !== 'success')
      return atForm(me.error.message, me.error.code === 'UNAUTHORIZED' || me.error.code === 'ACCOUNT_DISABLED' ? 'key' : undefined)
    before = me.data.credits_remaining
  }
  view.hidden = false
  headlineBox.hidden = true
  say(demoBox, [])
  for (const panel of panels) reset(panel, 'Waiting for the parts above.')
  const asked = { year: values.has('year') ? Number(values.get('year')) : undefined }
  let stopped
  // Keyless, the parts past the demo's calls left are not asked for: one note says so, not a refusal in each.
  let skipped = 0
  for (const panel of panels) {
    if (stopped !== undefined) {
      refuse(panel, stopped)
      continue
    }
    // The first part is always asked: the demo's day may have turned since the count was told.
    if (key === '' && panel !== panels[0] && demo !== undefined && demo.left === 0) {
      unloaded(panel, 'Not asked for: the free demo has no calls left today.')
      skipped++
      continue
    }
    const heading = panel.querySelector('h2').textContent
    reset(panel, 'Loading…')
    account.textContent = 'Loading ' + heading.toLowerCase() + '…'
    const { answer, headers } = await call(panel.dataset.path, paramsOf(panel, values), key)
    demo = demoLeft(headers) ?? demo
    if (answer.status === 'success') {
      panel.querySelector('.state').replaceChildren()
      try {
        draw(panel, answer.data, asked)
        if (panel === panels[0]) showHeadline(answer.data)
      } catch {
        reset(panel, '')
        refuse(panel, { code: 'DRAWING', message: 'This browser could not draw this part.' })
      }
      continue
    }
    const e = answer.error
    // The form itself is wrong (a value out of range, a make or model no listing has): every part would say so.
    if (panel === panels[0] && (e.code === 'INVALID_PARAMETER' || Array.isArray(e.suggestions)))
      return atForm(e.message, e.parameter)
    if (e.code === 'DEMO_LIMIT_REACHED') {
      // Spent elsewhere: this part and the rest are not asked for, and the note says why.
      demo = { left: 0, quota: demo?.quota }
      unloaded(panel, 'Not asked for: the free demo has no calls left today.')
      skipped++
      continue
    }
    refuse(panel, e)
    // Past the demo limit, or with a key the API no longer takes, the parts below would be refused alike: not asked.
    if (e.code === 'UNAUTHORIZED' || e.code === 'ACCOUNT_DISABLED') stopped = e
  }
  if (skipped > 0) demoSpent(demo?.left ?? 0, skipped)
  if (key === '') {
    account.textContent =
      demo === undefined
        ? ''
        : 'Demo calls left today: ' + count(demo.left) + (demo.quota === undefined ? '' : ' of ' + count(demo.quota)) + '.'
    return
  }
  const after = await balance(key)
  account.textContent =
    after.status === 'success'
      ? 'Credits: ' + count(before) + ' before this view, ' + count(after.data.credits_remaining) + ' after it (' + count(before - after.data.credits_remaining) + ' used).'
      : 'Credits before this view: ' + count(before) + '.'
}
`
