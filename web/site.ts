import { apiView, type ApiView } from './api-view.js'

/** What every page is built from: the served document, the public address and the demo quota. */
export interface Site {
  /** The public URL without a trailing slash: the base of every absolute link. */
  readonly url: string
  readonly api: ApiView
  /** Keyless market calls per client address per day; 0 when the demo tier is off. */
  readonly demoQuota: number
  /** Where plans are bought and where support answers: mailboxes at the public URL's host. */
  readonly sales: string
  readonly support: string
}

export function site(documentJson: string, publicUrl: string, demoQuota: number): Site {
  const url = publicUrl.replace(/\/+$/, '')
  const host = new URL(url).hostname
  return { url, api: apiView(documentJson), demoQuota, sales: `sales@${host}`, support: `support@${host}` }
}
