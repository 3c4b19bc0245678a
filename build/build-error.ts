/**
 * What stopped a build or a pull; `build --json` prints it, so scripts may rely on it.
 */
export type BuildErrorCode =
  /** Another build or pull holds the snapshots folder. */
  | 'build_locked'
  /** An option's value is not one the build can use. */
  | 'invalid_option'
  /** The operator's alias table cannot be read or is not one. */
  | 'invalid_alias_table'
  /** The export cannot be opened or read. */
  | 'export_unreadable'
  /** The export is no CSV or NDJSON listings export, or it is cut short (a truncated gzip, an open quote). */
  | 'export_malformed'
  /** The export holds no rows. */
  | 'export_empty'
  /** No row of the export passed validation. */
  | 'no_valid_rows'
  /** More rows were rejected than the allowed share. */
  | 'too_many_rejected'
  /** The new snapshot holds far fewer listings or keys than the current one (--allow-shrink publishes it). */
  | 'market_shrank'
  /** Computing the statistics failed. */
  | 'statistics_failed'
  /** The snapshot written (or pulled) does not read back as sound. */
  | 'snapshot_unsound'
  /** A download failed (an export's or a pulled snapshot's), or a pulled file is not what its manifest lists. */
  | 'download_failed'
  /** A file of the snapshot cannot be written, or the disk has no room for it. */
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
