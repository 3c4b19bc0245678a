import { asset } from './resource.js'

/*
 * The account page's behaviour, in plain browser JavaScript: sign in with an e-mail
 * code (the session lives in an HttpOnly cookie the script never reads), then the
 * account, its recent transactions and the replacement of its key, each from the API.
 * Every failure shows the API's own message.
 */
const js = `'use strict'
{
  const $ = (id) => document.getElementById(id)
  const root = $('account-page')
  const api = root.dataset.api
  const steps = { email: $('signin-email'), code: $('signin-code'), account: $('account-view') }
  const error = $('error')
  const notice = $('notice')
  let email = ''

  const say = (box, text) => {
    box.textContent = text
    box.hidden = text === ''
  }
  const show = (name) => {
    for (const key of Object.keys(steps)) steps[key].hidden = key !== name
  }
  const call = async (method, path, body) => {
    say(error, '')
    let failure
    try {
      const response = await fetch(api + path, {
        method,
        credentials: 'same-origin',
        headers: body === undefined ? { Accept: 'application/json' } : { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const answer = await response.json().catch(() => null)
      if (answer !== null && answer.status === 'success') return answer.data
      failure = answer !== null && answer.error ? answer.error : { message: 'The service answered with status ' + response.status + '.' }
    } catch {
      failure = { message: 'The service could not be reached. Check your connection and try again.' }
    }
    if (failure.code === 'UNAUTHORIZED') {
      show('email')
      if (path !== '/account/me') say(error, failure.message)
      return undefined
    }
    say(error, failure.message)
    return undefined
  }

  const cell = (text) => {
    const td = document.createElement('td')
    td.textContent = text
    return td
  }

  const load = async () => {
    const me = await call('GET', '/account/me')
    if (me === undefined) return
    const usage = await call('GET', '/account/usage?limit=20')
    if (usage === undefined) return
    $('account-email').textContent = me.email
    $('account-balance').textContent = me.credits_remaining.toLocaleString('en-US')
    $('account-key').textContent = me.key_prefix + '...'
    const body = $('transactions')
    body.replaceChildren()
    for (const e of usage.transactions) {
      const row = document.createElement('tr')
      const what = e.type === 'charge' || e.type === 'failed_call'
        ? [e.endpoint, e.make, e.model, e.year].filter((x) => x !== null).join(' ') + (e.status === 'success' ? '' : ' (' + e.status + ')')
        : e.type.replace('_', ' ') + (e.reference === null ? '' : ': ' + e.reference)
      row.append(cell(e.time.slice(0, 16).replace('T', ' ')), cell(what), cell(String(e.credits)), cell(String(e.balance_after)))
      body.append(row)
    }
    $('no-transactions').hidden = usage.transactions.length > 0
    show('account')
  }

  steps.email.addEventListener('submit', async (event) => {
    event.preventDefault()
    const data = await call('POST', '/auth/sign-in', { email: $('signin-address').value })
    if (data === undefined) return
    email = data.email
    $('code-to').textContent = email
    $('signin-otp').value = ''
    show('code')
    $('signin-otp').focus()
  })

  steps.code.addEventListener('submit', async (event) => {
    event.preventDefault()
    const data = await call('POST', '/auth/session', { email, code: $('signin-otp').value.trim() })
    if (data === undefined) return
    await load()
  })

  $('rotate').addEventListener('click', async () => {
    if (!confirm('Replace your key? The new key is e-mailed to you, and the one you use now stops working at once.')) return
    const data = await call('POST', '/account/keys/rotate')
    if (data === undefined) return
    say(notice, 'A new key is on its way to ' + data.email + '. The previous key no longer works.')
    await load()
  })

  $('sign-out').addEventListener('click', async () => {
    await call('POST', '/auth/sign-out')
    say(notice, '')
    show('email')
  })

  load()
}
`

/** The account page's script. */
export const ACCOUNT_SCRIPT = asset('account', 'js', js, 'text/javascript; charset=utf-8')
