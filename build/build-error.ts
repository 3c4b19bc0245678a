/**
 * Which failure a BuildError is, for a caller to tell them apart without reading the message;
 * `build --json` prints it, so scripts may rely on it.
 */
export type BuildErrorCode =
  /** An option of the build that cannot be used (an --as-of that is no date). */
  | 'invalid_option'
  /** Another build is writing to the snapshots folder. */
  | 'build_running'
  /** The export cannot be opened or read: not there, a folder, a read that failed. */
  | 'unreadable_export'
  /** A gzip export cut short or corrupt. */
  | 'corrupt_gzip'
  /** Not a listings export: no header line, or one without a required column. */
  | 'not_an_export'
  /** An export without a single row. */
  | 'empty_export'
  /** A record longer than any export's should be: an unbalanced quote, most likely. */
  | 'record_too_long'
  /** A CSV quoted field still open at the end of the export. */
  | 'unclosed_quote'
  /** No row passed validation, or more than the allowed share was rejected. */
  | 'too_many_rejected'
  /** Every listing kept is a new car: there is no used-car market to describe. */
  | 'no_used_listings'
  /** The new snapshot holds far fewer listings or keys than the current one (--allow-shrink publishes it). */
  | 'market_shrank'
  /** The alias table cannot be read or is not one. */
  | 'invalid_alias_table'
  /** The statistics worker failed or stopped. */
  | 'statistics_failed'
  /** The snapshot just written does not read back as written. */
  | 'unsound_snapshot'
  /** A download that could not be made or broke off (a refused connection, a timeout). */
  | 'download_failed'
  /** A download answered with an HTTP status other than success. */
  | 'http_status'
  /** A download that ran past its deadline or below its minimum rate (a source that trickles). */
  | 'download_too_slow'
  /** A download that ran on past the size expected. */
  | 'download_too_long'
  /** A download that ended short of the size its manifest lists. */
  | 'download_incomplete'
  /** A downloaded file whose SHA-256 is not the one its manifest lists. */
  | 'digest_mismatch'
  /** Another host's manifest.json that is not a snapshot manifest. */
  | 'invalid_manifest'
  /** Another host's snapshot without manifest.sig, where a public key says whose signature it must carry. */
  | 'unsigned'
  /** Another host's manifest.sig that is not the signature of its manifest.json by the key given. */
  | 'bad_signature'
  /** Not room enough on the disk for a snapshot. */
  | 'no_room'
  /** A file of the snapshot could not be written (a full disk). */
  | 'write_failed'

/**
 * A build that cannot go on: a malformed export, an unreadable source, a bad option.
 * Its message is written for the operator; the CLI prints it and exits non-zero, and
 * nothing is published.
 */
export class BuildError extends Error {
  override name = 'BuildError'
  constructor(
    readonly code: BuildErrorCode,
    message: string,
  ) {
    super(message)
  }
}
