/** Which failure a SnapshotError is, for a caller to tell them apart without reading the message. */
export type SnapshotErrorCode =
  /** No snapshot where one was looked for. */
  | 'no_snapshot'
  /** A file manifest.json lists, or manifest.json itself, is not there. */
  | 'missing_file'
  /** A file in the folder that manifest.json does not list. */
  | 'unlisted_file'
  /** A listed name that is no regular file. */
  | 'not_a_file'
  /** A file whose size is not the one manifest.json lists. */
  | 'size_mismatch'
  /** A file whose SHA-256 is not the one manifest.json lists: changed after the build. */
  | 'digest_mismatch'
  /** A manifest.json that is not JSON, or not a snapshot manifest. */
  | 'invalid_manifest'
  /** A manifest.json without the digests of the files: built by an older version. */
  | 'no_digests'
  /** A data file LMDB cannot map safely (empty, cut short, foreign). */
  | 'unmappable'
  /** A data file without the manifest of its build. */
  | 'no_manifest'
  /** A snapshot of another schema version than this code reads. */
  | 'schema_mismatch'
  /** A manifest.json and a data file of two different builds. */
  | 'build_mismatch'
  /** Not as many answers as the manifest counts. */
  | 'answer_count'
  /** An answer that does not read as its operation stores it, or whose figures disagree. */
  | 'inconsistent_answer'
  /** A snapshot without manifest.sig, where a public key says whose signature it must carry. */
  | 'unsigned'
  /** A manifest.sig that is not the signature of manifest.json by the key given: another key's, or a changed manifest. */
  | 'bad_signature'

/** A snapshot that cannot be opened or served: its files are not as its build wrote them. */
export class SnapshotError extends Error {
  override name = 'SnapshotError'
  constructor(
    readonly code: SnapshotErrorCode,
    message: string,
  ) {
    super(message)
  }
}
