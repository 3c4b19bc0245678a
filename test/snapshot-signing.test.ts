import { generateKeyPairSync } from 'node:crypto'
import { copyFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { open } from 'lmdb'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { BuildError } from '../build/build-error.js'
import { pullSnapshot } from '../build/pull.js'
import {
  ANSWERS_OPTIONS,
  BUILD_ID_PATTERN,
  CURRENT_LINK,
  MANIFEST_FILE,
  SIGNATURE_FILE,
  SNAPSHOT_FILE,
} from '../format/schema.js'
import { fileDigest } from '../format/snapshot-files.js'
import { readSigningKey, readVerifyKey } from '../format/manifest-signature.js'
import { Snapshot } from '../query/snapshot.js'
import { staticOrigin } from './static-origin.js'
import {
  build,
  carmarket,
  copySnapshot,
  freshDir,
  pointCurrent,
  reseal,
  rows,
  spawnServe,
  toCsv,
  writeExport,
} from './support.js'

/**
 * Snapshots signed by their build (Ed25519, manifest.sig beside manifest.json): `serve` and
 * `snapshot pull` given the public key refuse a snapshot unsigned or signed by another key,
 * or whose manifest was changed after it was signed; a manifest may list the snapshot's
 * own file only; and every answer of a snapshot is checked before it is served.
 */

/** 40 models in 6 years, 12 listings each: answers enough that a check of a sample would miss most of them. */
const CSV = toCsv(
  Array.from({ length: 240 }, (_, k) =>
    rows(12, (i) => ({
      make: 'Volkswagen',
      model: `Model ${k % 40}`,
      year: 2012 + Math.floor(k / 40),
      price: 30_000 + k * 100 + i * 500,
    })),
  ).flat(),
)

/** A key pair in PEM files of the test's own: [private, public]. */
function keyPair(t: Test, name: string): [string, string] {
  const dir = freshDir(t)
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const files: [string, string] = [join(dir, `${name}.pem`), join(dir, `${name}.pub.pem`)]
  writeFileSync(files[0], privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 })
  writeFileSync(files[1], publicKey.export({ type: 'spki', format: 'pem' }))
  return files
}

/**
 * A copy of the snapshot `from` in a new folder of `snapshots`, made `current`, with one valuation answer that a check
 * of a sample skips changed so that its median lies above its p75, and its manifest's digests made to match: a
 * snapshot altered by whoever could write the files. Returns the copy's folder.
 */
async function alteredCopy(from: string, snapshots: string): Promise<string> {
  const built = readdirSync(snapshots).find((name) => BUILD_ID_PATTERN.test(name))!
  const id = `${built.slice(0, -6)}${built.endsWith('abcdef') ? 'fedcba' : 'abcdef'}`
  const copy = join(snapshots, id)
  copySnapshot(from, copy)
  // Its signature comes along, as whoever altered it would leave it.
  if (existsSync(join(from, SIGNATURE_FILE))) copyFileSync(join(from, SIGNATURE_FILE), join(copy, SIGNATURE_FILE))
  const manifest = JSON.parse(readFileSync(join(copy, MANIFEST_FILE), 'utf8')) as Record<string, unknown>
  writeFileSync(join(copy, MANIFEST_FILE), JSON.stringify({ ...manifest, build_id: id }))
  const root = open({ path: join(copy, SNAPSHOT_FILE), maxDbs: 4 })
  const meta = root.openDB({ name: 'meta' })
  await meta.put('manifest', { ...(meta.get('manifest') as object), build_id: id })
  const answers = root.openDB(ANSWERS_OPTIONS)
  // A valuation a check of 200 answers spread evenly over the file would not read.
  const keys = [...answers.getKeys()]
  const step = Math.floor(keys.length / 200)
  if (step < 2) throw new Error(`${keys.length} answers: too few`)
  const key = keys.find((k, i) => i % step !== 0 && (k as unknown[])[4] === 'valuation')!
  const stored = answers.getBinary(key)!.toString('latin1')
  const changed = stored.replace(/"median":\d/, '"median":9')
  if (changed === stored) throw new Error('no median to change')
  await answers.put(key, Buffer.from(changed, 'latin1'))
  await root.close()
  reseal(copy)
  pointCurrent(snapshots, id)
  return copy
}

/** The log's events of a snapshot refused. */
function refusals(log: string): Record<string, unknown>[] {
  return log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((event) => String(event.message).includes('refused'))
}

async function ready(port: number): Promise<number> {
  const response = await request(`http://127.0.0.1:${port}/readyz`)
  await response.body.dump()
  return response.statusCode
}

t.test('build --signing-key signs the manifest; serve --verify-key serves only what that key signed', async (t) => {
  const [signing, verify] = keyPair(t, 'build')
  const [, otherVerify] = keyPair(t, 'other')
  const input = writeExport(t, 'export.csv', CSV)
  const snapshots = join(freshDir(t), 'snapshots')
  const built = await carmarket([
    'build',
    '--input',
    input,
    '--snapshots',
    snapshots,
    '--as-of',
    '2026-09-30',
    '--signing-key',
    signing,
    '--json',
  ])
  t.equal(built.code, 0, built.stderr)
  const dir = join(snapshots, CURRENT_LINK)
  t.ok(existsSync(join(dir, SIGNATURE_FILE)), 'manifest.sig beside manifest.json')
  t.doesNotThrow(() => Snapshot.open(snapshots, { verifyKey: readVerifyKey(verify) }).close(), 'the reader accepts it')
  t.throws(() => Snapshot.open(snapshots, { verifyKey: readVerifyKey(otherVerify) }), { code: 'bad_signature' })

  const good = await spawnServe(t, ['--snapshots', snapshots, '--verify-key', verify, '--outbox', freshDir(t)])
  t.equal(await ready(good.port), 200, 'served under its key')
  const wrong = await spawnServe(t, ['--snapshots', snapshots, '--verify-key', otherVerify, '--outbox', freshDir(t)])
  t.equal(await ready(wrong.port), 503, 'refused under another key: not ready')
  t.match(refusals(wrong.log()), [{ code: 'bad_signature' }], 'the log says why')

  const unsigned = join(freshDir(t), 'snapshots')
  t.equal((await carmarket(['build', '--input', input, '--snapshots', unsigned, '--as-of', '2026-09-30'])).code, 0)
  t.throws(() => Snapshot.open(unsigned, { verifyKey: readVerifyKey(verify) }), { code: 'unsigned' })
  const plain = await spawnServe(t, ['--snapshots', unsigned, '--verify-key', verify, '--outbox', freshDir(t)])
  t.equal(await ready(plain.port), 503, 'an unsigned snapshot is refused when a key is given')
  const keyless = await spawnServe(t, ['--snapshots', unsigned, '--outbox', freshDir(t)])
  t.equal(await ready(keyless.port), 200, 'and served when none is')

  const notAKey = writeExport(t, 'not-a-key.pem', 'hello')
  const refused = await carmarket(['build', '--input', input, '--snapshots', snapshots, '--signing-key', notAKey])
  t.not(refused.code, 0, 'a signing key that is none stops the build')
  t.equal(refused.code, 2, 'as a wrong option')
  t.equal(refused.stderr.trim().split('\n').length, 1, 'in one line')
})

t.test('snapshot pull --verify-key publishes only a snapshot signed by that key, as signed', async (t) => {
  const [signing, verify] = keyPair(t, 'origin')
  const [, otherVerify] = keyPair(t, 'other')
  const origin = await build(t, CSV, { signingKey: readSigningKey(signing) })
  const { base } = await staticOrigin(t, origin.snapshots)
  const local = join(freshDir(t), 'snapshots')

  await t.rejects(pullSnapshot({ from: base, snapshots: local, verifyKey: readVerifyKey(otherVerify) }), {
    code: 'bad_signature',
  })
  t.notOk(existsSync(join(local, CURRENT_LINK)), 'another key: nothing published')
  const report = await pullSnapshot({ from: base, snapshots: local, verifyKey: readVerifyKey(verify) })
  t.equal(report.result, 'published')
  t.ok(existsSync(join(local, report.build_id, SIGNATURE_FILE)), 'the signature comes along')
  t.doesNotThrow(() => Snapshot.open(local, { verifyKey: readVerifyKey(verify) }).close())

  // An altered answer whose digests were recomputed: the manifest changed, its signature did not.
  await alteredCopy(join(origin.snapshots, origin.report.build_id), origin.snapshots)
  const altered = join(freshDir(t), 'snapshots')
  await t.rejects(pullSnapshot({ from: base, snapshots: altered, verifyKey: readVerifyKey(verify) }), {
    code: 'bad_signature',
  })
  t.notOk(existsSync(join(altered, CURRENT_LINK)), 'nothing published')

  const unsignedOrigin = await build(t, CSV)
  const { base: unsignedBase } = await staticOrigin(t, unsignedOrigin.snapshots)
  await t.rejects(
    pullSnapshot({ from: unsignedBase, snapshots: join(freshDir(t), 'snapshots'), verifyKey: readVerifyKey(verify) }),
    { code: 'unsigned' },
  )
})

t.test(
  'an answer altered and its digests recomputed is refused, by serve and by pull, whatever the sample',
  async (t) => {
    const origin = await build(t, CSV)
    const copy = await alteredCopy(join(origin.snapshots, origin.report.build_id), origin.snapshots)
    const server = await spawnServe(t, ['--snapshots', copy, '--outbox', freshDir(t)])
    t.equal(await ready(server.port), 503, 'not served')
    t.match(refusals(server.log()), [{ code: 'inconsistent_answer' }], 'the log says why')

    const { base } = await staticOrigin(t, origin.snapshots)
    const error = await pullSnapshot({ from: base, snapshots: join(freshDir(t), 'snapshots') }).catch((e: unknown) => e)
    t.ok(error instanceof BuildError, 'pull refuses it too')
  },
)

t.test('a manifest listing any file beyond the snapshot’s own is refused, by pull and by a reader', async (t) => {
  const origin = await build(t, CSV)
  const dir = join(origin.snapshots, origin.report.build_id)
  const copy = join(freshDir(t), 'copy')
  copySnapshot(dir, copy)
  writeFileSync(join(copy, 'run-me.sh'), '#!/bin/sh\necho hello\n')
  const manifest = JSON.parse(readFileSync(join(copy, MANIFEST_FILE), 'utf8')) as { files: Record<string, unknown> }
  manifest.files['run-me.sh'] = fileDigest(join(copy, 'run-me.sh'))
  writeFileSync(join(copy, MANIFEST_FILE), JSON.stringify(manifest))
  t.throws(() => Snapshot.open(copy), { code: 'invalid_manifest' }, 'the reader refuses it')

  // The origin's own folder lists it too.
  writeFileSync(join(dir, 'run-me.sh'), '#!/bin/sh\necho hello\n')
  writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest))
  const { base } = await staticOrigin(t, origin.snapshots)
  const local = join(freshDir(t), 'snapshots')
  await t.rejects(pullSnapshot({ from: base, snapshots: local }), { code: 'invalid_manifest' })
  t.notOk(existsSync(join(local, origin.report.build_id)), 'nothing published')
})
