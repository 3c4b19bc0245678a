import { asset } from './resource.js'

/*
 * The registration form's behaviour, in plain browser JavaScript: the API takes JSON
 * bodies, which an HTML form cannot send by itself. Every failure shows the API's own
 * message, so the page and the API never disagree about what was wrong.
 */
const js = `'use strict'
{
  const $ = (id) => document.getElementById(id)
  const steps = { email: $('email-step'), code: $('code-step'), done: $('done-step') }
  const fields = { email: $('email'), code: $('code') }
  const error = $('error')
  const notice = $('notice')
  // Where the API's registration routes are: under the site's base path.
  const api = $('register').dataset.api
  let email = ''

  const say = (box, text) => {
    box.textContent = text
    box.hidden = text === ''
  }

  const show = (name) => {
    for (const key of Object.keys(steps)) steps[key].hidden = key !== name
    if (name === 'done') steps.done.focus()
    else fields[name].focus()
  }

  const busy = (on) => {
    for (const button of document.querySelectorAll('#register button')) button.disabled = on
  }

  /** Posts a JSON body; resolves to the answer's data, or undefined once its error is shown. */
  const post = async (path, body) => {
    say(error, '')
    say(notice, '')
    for (const field of Object.values(fields)) field.removeAttribute('aria-invalid')
    busy(true)
    let failure
    try {
      const response = await fetch(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(body),
      })
      const answer = await response.json().catch(() => null)
      if (answer !== null && answer.status === 'success') return answer.data
      failure = answer !== null && answer.error && typeof answer.error.message === 'string'
        ? answer.error
        : { message: 'The service answered with status ' + response.status + '. Please try again.' }
    } catch {
      failure = { message: 'The service could not be reached. Check your connection and try again.' }
    } finally {
      busy(false)
    }
    say(error, failure.message)
    const field = Object.hasOwn(fields, failure.parameter) ? fields[failure.parameter] : undefined
    if (field !== undefined) {
      field.setAttribute('aria-invalid', 'true')
      field.focus()
    }
    return undefined
  }

  const codeSent = (data) => {
    email = data.email
    $('sent-to').textContent = email
    $('expires').textContent = String(Math.round(data.expires_in / 60))
    fields.code.value = ''
  }

  steps.email.addEventListener('submit', async (event) => {
    event.preventDefault()
    const data = await post(api + '/register', { email: fields.email.value })
    if (data === undefined) return
    codeSent(data)
    show('code')
  })

  steps.code.addEventListener('submit', async (event) => {
    event.preventDefault()
    const data = await post(api + '/verify', { email, code: fields.code.value.trim() })
    if (data === undefined) return
    $('done-to').textContent = data.email
    show('done')
  })

  $('resend').addEventListener('click', async () => {
    const data = await post(api + '/register', { email })
    if (data === undefined) return
    codeSent(data)
    say(notice, 'A new code is on its way to ' + email + '.')
    fields.code.focus()
  })

  $('change').addEventListener('click', () => {
    say(error, '')
    say(notice, '')
    show('email')
  })
}
`

/** The registration page's script. */
export const REGISTER_SCRIPT = asset('register', 'js', js, 'text/javascript; charset=utf-8')
