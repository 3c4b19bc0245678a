/** The message of a caught value: anything may be thrown, and only an Error is sure to have one. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
