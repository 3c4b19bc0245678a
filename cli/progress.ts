/**
 * A progress bar on standard error when it is a terminal; silent otherwise, so logs and
 * pipes only get the final report.
 */
export class ProgressBar {
  private lastDraw = 0
  private drawn = false
  private readonly enabled: boolean

  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    enabled = stream.isTTY === true,
  ) {
    this.enabled = enabled
  }

  /** Redraws at most ten times a second; `total` undefined shows a count without a bar. */
  update(label: string, done: number, total: number | undefined, unit: 'bytes' | 'count' = 'count'): void {
    if (!this.enabled) return
    const now = Date.now()
    if (now - this.lastDraw < 100 && done !== total) return
    this.lastDraw = now
    const width = 30
    const amount = unit === 'bytes' ? formatBytes : (n: number) => n.toLocaleString('en-US')
    let line: string
    if (total === undefined || total <= 0) {
      line = `${label.padEnd(10)} ${amount(done)}`
    } else {
      const share = Math.min(1, done / total)
      const filled = Math.round(share * width)
      line = `${label.padEnd(10)} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(share * 100)).padStart(3)}% ${amount(done)} / ${amount(total)}`
    }
    this.stream.write(`\r${line}\u001b[K`)
    this.drawn = true
  }

  /** Ends the current bar's line. */
  finish(): void {
    if (this.drawn) this.stream.write('\n')
    this.drawn = false
    this.lastDraw = 0
  }
}

function formatBytes(n: number): string {
  return n < 1 << 20 ? `${(n / 1024).toFixed(0)} KiB` : `${(n / (1 << 20)).toFixed(1)} MiB`
}
