/**
 * A build that cannot go on: a malformed export, an unreadable source, a bad option.
 * Its message is written for the operator; the CLI prints it and exits non-zero, and
 * nothing is published.
 */
export class BuildError extends Error {
  override name = 'BuildError'
}
