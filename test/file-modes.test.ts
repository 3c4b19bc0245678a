import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { request } from 'undici'
import { execFileSync } from 'node:child_process'
import { CLI, build, freshDir, outboxMail, rows, spawnServe, toCsv } from './support.js'

const mode = (path: string) => statSync(path).mode & 0o777

t.test(
  'ledger, counters, backups and the outbox hold secrets: only their owner may read them, whatever the umask',
  async (t) => {
    const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ price: 30_000 + i }))))
    const root = freshDir(t)
    const ledgerDir = join(root, 'ledger')
    const outbox = join(root, 'outbox')
    const umask = process.umask(0)
    t.teardown(() => process.umask(umask))
    const server = await spawnServe(t, ['--snapshots', snapshots, '--ledger', ledgerDir, '--outbox', outbox])
    const base = `http://127.0.0.1:${server.port}`
    const post = (path: string, body: object) =>
      request(`${base}${path}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      }).then((r) => r.body.json())
    await post('/v1/auth/register', { email: 'tajne@example.pl' })
    const code = /code is (\d{6})/.exec(outboxMail(outbox, 'tajne@example.pl')[0]!.text)![1]
    await post('/v1/auth/verify', { email: 'tajne@example.pl', code })

    t.equal(mode(ledgerDir), 0o700, 'the ledger folder')
    for (const file of readdirSync(ledgerDir)) t.equal(mode(join(ledgerDir, file)), 0o600, `ledger file ${file}`)
    t.equal(mode(outbox), 0o700, 'the outbox folder')
    const mails = readdirSync(outbox)
    t.equal(mails.length, 2, 'the code and the key')
    for (const file of mails) t.equal(mode(join(outbox, file)), 0o600, `outbox message ${file}`)

    const backup = join(root, 'backup')
    execFileSync(process.execPath, [CLI, 'ledger', 'backup', '--ledger', ledgerDir, '--to', backup])
    t.equal(mode(backup), 0o700, 'a backup folder')
    for (const file of readdirSync(backup)) t.equal(mode(join(backup, file)), 0o600, `backup file ${file}`)

    const cliLedger = join(root, 'cli-ledger')
    execFileSync(process.execPath, [
      CLI,
      'accounts',
      'create',
      '--ledger',
      cliLedger,
      '--email',
      'cli@example.pl',
      '--json',
    ])
    t.equal(mode(cliLedger), 0o700, 'a ledger the CLI creates')
    for (const file of readdirSync(cliLedger)) t.equal(mode(join(cliLedger, file)), 0o600, `its file ${file}`)
  },
)
