/*
 * The explorer page's behaviour, in plain browser JavaScript (an ES module): suggestions
 * from the free catalogue as the visitor types, then one API call per part of the view,
 * one after another in the page's order, each answer drawn by the same chart modules
 * GET /v1/chart runs on the server. Every failure shows the API's own message, and a
 * refusal that has a way out (registration, a top-up) links to it in that part's place.
 */
export const EXPLORE_SCRIPT = `import { EXPLORER_CHARTS } from '../charts/explorer.js'

const $ = (id) => document.getElementById(id)
const form = $('explore')
const api = form.dataset.api
const keyHeader = form.dataset.keyHeader
const keyField = $('key')
const error = $('error')
const account = $('account')
const panels = [...document.querySelectorAll('#view .panel')]
const KEY_STORE = 'carmarket.key'
const number = (n) => n.toLocaleString('en-US')

keyField.value = sessionStorage.getItem(KEY_STORE) ?? ''
if (keyField.value !== '') $('key-box').open = true
keyField.addEventListener('change', () => {
  const key = keyField.value.trim()
  if (key === '') sessionStorage.removeItem(KEY_STORE)
  else sessionStorage.setItem(KEY_STORE, key)
})
$('forget-key').addEventListener('click', () => {
  keyField.value = ''
  sessionStorage.removeItem(KEY_STORE)
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
const suggestMakes = async () => {
  const { answer } = await call('/v1/catalog/makes', undefined, '')
  if (answer.status === 'success') fill($('makes'), answer.data.makes.map((m) => m.make))
}
const suggestModels = async () => {
  const make = $('make').value.trim()
  models = []
  if (make === '') return fill($('models'), [])
  const { answer } = await call('/v1/catalog/models', new URLSearchParams({ make }), '')
  if (answer.status !== 'success' || $('make').value.trim() !== make) return
  models = answer.data.models
  fill($('models'), models.map((m) => m.model))
  suggestYears()
}
const suggestYears = () => {
  const name = $('model').value.trim().toLowerCase()
  const model = models.find((m) => m.model.toLowerCase() === name)
  fill($('years'), model === undefined ? [] : [...model.years].reverse())
}
let typing
$('make').addEventListener('input', () => {
  clearTimeout(typing)
  typing = setTimeout(suggestModels, 250)
})
$('make').addEventListener('change', suggestModels)
$('model').addEventListener('input', suggestYears)
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
      const pct = (r.vs_national_pct > 0 ? '+' : r.vs_national_pct < 0 ? '-' : '') + Math.abs(r.vs_national_pct).toFixed(1) + ' %'
      tr.append(cell(r.region, false), cell(number(r.avg_price), true), cell(pct, true), cell(number(r.sample_size), true))
      return tr
    })
  box.querySelector('tbody').replaceChildren(...rows)
  box.hidden = false
}

/** Draws each chart of a panel from its answer, the chart's figures in words beside it. */
const draw = (panel, data) => {
  for (const figure of panel.querySelectorAll('figure')) {
    const { svg, words } = EXPLORER_CHARTS[figure.dataset.chart](data)
    const chart = figure.querySelector('.chart')
    if (svg === undefined) chart.replaceChildren()
    else {
      const image = document.importNode(new DOMParser().parseFromString(svg, 'image/svg+xml').documentElement, true)
      // The words are beside the chart: the image is named by its title alone.
      image.setAttribute('aria-labelledby', image.querySelector('title').id)
      chart.replaceChildren(image)
    }
    chart.hidden = svg === undefined
    figure.querySelector('figcaption').textContent = words
    figure.hidden = false
  }
  regionsTable(panel, data)
}

const reset = (panel, text) => {
  panel.querySelector('.state').textContent = text
  panel.querySelector('.state').className = 'state muted'
  for (const figure of panel.querySelectorAll('figure')) figure.hidden = true
  const table = panel.querySelector('.regions')
  if (table !== null) table.hidden = true
}

const refuse = (panel, e) => {
  const state = panel.querySelector('.state')
  state.className = 'state message ' + (e.code === 'INSUFFICIENT_DATA' ? 'info' : 'error')
  state.replaceChildren(e.message, ...wayOut(e))
}

const field = (name) => document.getElementById(name)
const paramsOf = (panel) => {
  const params = new URLSearchParams(panel.dataset.fixed)
  for (const name of panel.dataset.parameters.split(' ')) {
    const input = field(name)
    if (input !== null && input.value.trim() !== '') params.set(name, input.value.trim())
  }
  return params
}

const balance = async (key) => {
  const { answer } = await call('/v1/account/me', undefined, key)
  return answer
}

let running = false
form.addEventListener('submit', async (event) => {
  event.preventDefault()
  if (running) return
  running = true
  const button = form.querySelector('button[type=submit]')
  button.disabled = true
  form.setAttribute('aria-busy', 'true')
  say(error, [])
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid')
  try {
    await show(keyField.value.trim())
  } finally {
    running = false
    button.disabled = false
    form.setAttribute('aria-busy', 'false')
  }
})

const show = async (key) => {
  let before
  if (key !== '') {
    const me = await balance(key)
    if (me.status !== 'success') {
      say(error, [me.error.message])
      keyField.setAttribute('aria-invalid', 'true')
      keyField.focus()
      return
    }
    before = me.data.credits_remaining
  }
  $('view').hidden = false
  for (const panel of panels) reset(panel, 'Waiting for the parts above.')
  account.textContent = 'Loading…'
  let demo
  let stopped
  for (const panel of panels) {
    if (stopped !== undefined) {
      refuse(panel, stopped)
      continue
    }
    reset(panel, 'Loading…')
    panel.setAttribute('aria-busy', 'true')
    const { answer, headers } = await call(panel.dataset.path, paramsOf(panel), key)
    panel.removeAttribute('aria-busy')
    demo = demoLeft(headers) ?? demo
    if (answer.status === 'success') {
      panel.querySelector('.state').replaceChildren()
      draw(panel, answer.data)
      continue
    }
    const e = answer.error
    if (e.code === 'INVALID_PARAMETER' && panel === panels[0]) {
      // The form itself is wrong: every part would say so.
      $('view').hidden = true
      say(error, [e.message])
      const input = typeof e.parameter === 'string' ? field(e.parameter) : null
      if (input !== null) {
        input.setAttribute('aria-invalid', 'true')
        input.focus()
      }
      account.textContent = ''
      return
    }
    refuse(panel, e)
    // Past the demo limit or the balance, the parts below would be refused alike: they are not asked.
    if (e.code === 'DEMO_LIMIT_REACHED' || e.code === 'UNAUTHORIZED' || e.code === 'ACCOUNT_DISABLED') stopped = e
  }
  if (key === '') {
    account.textContent =
      demo === undefined
        ? ''
        : 'Demo calls left today: ' + number(demo.left) + (demo.quota === undefined ? '' : ' of ' + number(demo.quota)) + '.'
    return
  }
  const after = await balance(key)
  account.textContent =
    after.status === 'success'
      ? 'Credits: ' + number(before) + ' before this view, ' + number(after.data.credits_remaining) + ' after it (' + number(before - after.data.credits_remaining) + ' used).'
      : 'Credits before this view: ' + number(before) + '.'
}
`
