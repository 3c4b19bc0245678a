import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { messageOf } from './message-of.js'
import { MANIFEST_FILE, SIGNATURE_FILE } from './schema.js'
import { SnapshotError } from './snapshot-error.js'

/**
 * Snapshots signed by their build. The digests in manifest.json tell a reader that the files are the ones the
 * manifest lists, but whoever can change the files (a pull origin, a shared folder) can list new digests too. A build
 * given an Ed25519 private key signs manifest.json's bytes, and a reader given the public key accepts only a manifest
 * that key signed: since the manifest names the data file's SHA-256, the signature covers every byte served.
 *
 * Keys are PEM files, as `openssl genpkey -algorithm ed25519` writes them (the public one from
 * `openssl pkey -in KEY -pubout`). The signature file is one line of base64.
 */

/** An Ed25519 private key from a PEM file; throws, saying why, for anything else. */
export function readSigningKey(path: string): KeyObject {
  return ed25519(path, 'private', () => createPrivateKey(readFileSync(path)))
}

/** An Ed25519 public key from a PEM file (a private key's file gives its public key); throws for anything else. */
export function readVerifyKey(path: string): KeyObject {
  return ed25519(path, 'public', () => createPublicKey(readFileSync(path)))
}

function ed25519(path: string, kind: 'private' | 'public', read: () => KeyObject): KeyObject {
  let key: KeyObject
  try {
    key = read()
  } catch (error) {
    throw new Error(`${path} is not an Ed25519 ${kind} key in PEM: ${messageOf(error)}`)
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`${path} is a ${key.asymmetricKeyType ?? 'symmetric'} key; snapshots are signed with Ed25519`)
  return key
}

/** The contents of manifest.sig for `manifest` (manifest.json's bytes). */
export function signatureOf(manifest: Buffer, key: KeyObject): string {
  return `${sign(null, manifest, key).toString('base64')}\n`
}

/**
 * Throws unless `signature` (manifest.sig's text, undefined when there is none) is `key`'s signature of `manifest`
 * (manifest.json's bytes); `where` names the snapshot in the message.
 */
export function verifySignature(manifest: Buffer, signature: string | undefined, key: KeyObject, where: string): void {
  if (signature === undefined)
    throw new SnapshotError(
      'unsigned',
      `${where} is not signed (no ${SIGNATURE_FILE}): only snapshots signed by the key given are accepted`,
    )
  const bytes = Buffer.from(signature.trim(), 'base64')
  if (bytes.length !== 64 || !verify(null, manifest, key, bytes))
    throw new SnapshotError(
      'bad_signature',
      `${where}: ${SIGNATURE_FILE} is not the signature of its ${MANIFEST_FILE} by the key given (another key signed it, or the manifest was changed after)`,
    )
}
