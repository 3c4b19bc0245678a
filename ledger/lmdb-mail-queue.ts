import type { Database, RootDatabase } from 'lmdb'
import { opened, whole } from './lmdb-databases.js'
import { mailId } from './mail-id.js'
import type { Mail, MailKind, MailQueue, MailRecord, QueuedMail } from './types.js'

/** A message waiting, as stored: the mail and where its sending stands. */
interface StoredMail extends Mail {
  readonly queued: number
  readonly attempts: number
  readonly give_up_at: number
  /** When it is due next (ms since the epoch). */
  readonly next: number
  readonly owner: string | null
  readonly lease_until: number
  readonly last_error: string | null
}

/** A message given up: what the operator is shown of it, and nothing it said. */
interface FailedMail {
  readonly kind: MailKind
  readonly to: string
  readonly queued: number
  readonly attempts: number
  readonly failed: number
  readonly last_error: string | null
}

/**
 * The mail queue of the LMDB ledger, in two databases of its environment: messages
 * waiting (`waiting`, keyed by id, which sorts by the time queued) and messages given up
 * (`failed`). Each change is a write transaction of the ledger's (`commit`), which LMDB
 * serialises across the processes sharing the file: a claim is read and leased in one,
 * so two senders never take one message. The queue holds what is not yet sent, a few
 * messages at a time, so a claim looks through it whole.
 */
export class LmdbMailQueue implements MailQueue {
  /**
   * Its databases, opened when first used, before any transaction: every database open in an environment costs each
   * of its transactions a little (a keyed call lost 9 % of its throughput to this queue's and the payments' and
   * sessions' six), and a server without a relay never uses them.
   */
  private readonly databases: () => {
    readonly waiting: Database<StoredMail, string>
    readonly failed: Database<FailedMail, string>
  }

  constructor(
    root: RootDatabase,
    /** Runs `work` in a write transaction of the ledger and resolves once it committed. */
    private readonly commit: <T>(work: () => T) => Promise<T>,
  ) {
    this.databases = opened(() => ({
      waiting: root.openDB<StoredMail, string>(whole('mail_waiting')),
      failed: root.openDB<FailedMail, string>(whole('mail_failed')),
    })).get
  }

  private get waiting(): Database<StoredMail, string> {
    return this.databases().waiting
  }

  private get failedMail(): Database<FailedMail, string> {
    return this.databases().failed
  }

  async enqueue(mail: Mail, giveUpAt: number): Promise<string> {
    this.databases()
    const now = Date.now()
    const id = mailId(now)
    const { kind, to, subject, text } = mail
    const stored: StoredMail = {
      kind,
      to,
      subject,
      text,
      queued: now,
      attempts: 0,
      give_up_at: giveUpAt,
      next: now,
      owner: null,
      lease_until: 0,
      last_error: null,
    }
    await this.commit(() => void this.waiting.put(id, stored))
    return id
  }

  async claim(owner: string, leaseMs: number, limit: number): Promise<QueuedMail[]> {
    this.databases()
    // Looked at outside a transaction first: a queue with nothing due costs no commit.
    if (this.due(Date.now(), 1).length === 0) return []
    return this.commit(() => {
      const now = Date.now()
      return this.due(now, limit).map(({ key, value }) => {
        void this.waiting.put(key, { ...value, owner, lease_until: now + leaseMs })
        const { kind, to, subject, text, queued, attempts, give_up_at } = value
        return { id: key, kind, to, subject, text, queued, attempts, give_up_at }
      })
    })
  }

  async sent(id: string, owner: string): Promise<void> {
    this.databases()
    await this.commit(() => {
      if (this.waiting.get(id)?.owner === owner) void this.waiting.remove(id)
    })
  }

  async failed(id: string, owner: string, error: string, retryInMs: number | undefined): Promise<void> {
    this.databases()
    await this.commit(() => {
      const mail = this.waiting.get(id)
      if (mail?.owner !== owner) return
      const now = Date.now()
      const attempts = mail.attempts + 1
      if (retryInMs !== undefined) {
        void this.waiting.put(id, {
          ...mail,
          attempts,
          next: now + retryInMs,
          owner: null,
          lease_until: 0,
          last_error: error,
        })
        return
      }
      void this.waiting.remove(id)
      const { kind, to, queued } = mail
      void this.failedMail.put(id, { kind, to, queued, attempts, failed: now, last_error: error })
    })
  }

  async list(failedOnly: boolean, limit: number): Promise<MailRecord[]> {
    const records: MailRecord[] = []
    for (const { key, value } of this.failedMail.getRange({ reverse: true, limit })) {
      records.push(record(key, value, 'failed', value.failed))
    }
    if (!failedOnly) {
      for (const { key, value } of this.waiting.getRange({ reverse: true, limit })) {
        records.push(record(key, value, 'queued', value.next))
      }
    }
    return records.sort((a, b) => b.id.localeCompare(a.id)).slice(0, limit)
  }

  async depth(): Promise<{ readonly queued: number; readonly failed: number }> {
    return { queued: this.waiting.getCount(), failed: this.failedMail.getCount() }
  }

  /** The first `limit` messages due at `now`: their time has come and no sender holds them. */
  private due(now: number, limit: number): { key: string; value: StoredMail }[] {
    const due: { key: string; value: StoredMail }[] = []
    for (const { key, value } of this.waiting.getRange()) {
      if (value.next <= now && value.lease_until <= now) due.push({ key, value })
      if (due.length >= limit) break
    }
    return due
  }
}

function record(
  id: string,
  mail: { kind: MailKind; to: string; queued: number; attempts: number; last_error: string | null },
  state: MailRecord['state'],
  next: number,
): MailRecord {
  return {
    id,
    kind: mail.kind,
    to: mail.to,
    state,
    queued: new Date(mail.queued).toISOString(),
    attempts: mail.attempts,
    next: new Date(next).toISOString(),
    last_error: mail.last_error,
  }
}
