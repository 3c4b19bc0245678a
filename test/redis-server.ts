import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Test } from 'tap'

/**
 * A Redis server of the test's own on 127.0.0.1:`port`, in memory only, so that a test
 * can stop, hang and restart it without disturbing the Redis other tests share. Killed
 * when the test ends.
 */
export class OwnRedis {
  private child: ChildProcess | undefined

  private constructor(readonly port: number) {}

  /** Starts one on `port`; resolves once it accepts connections. */
  static async start(t: Test, port: number): Promise<OwnRedis> {
    const redis = new OwnRedis(port)
    t.teardown(() => redis.kill())
    await redis.restart()
    return redis
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`
  }

  /** Starts the server again on the same port (after `kill`). */
  async restart(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    this.child = child
    let log = ''
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        log += chunk.toString()
        if (log.includes('Ready to accept connections')) resolve()
      })
      child.once('exit', () => reject(new Error(`redis-server exited: ${log}`)))
    })
  }

  /** Kills the server at once, as a crash would; resolves once it is gone. */
  async kill(): Promise<void> {
    const child = this.child
    this.child = undefined
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGKILL')
    await once(child, 'exit')
  }

  /** Stops the server, as a hang would, with its connections left open; resolves once it no longer runs. */
  async hang(): Promise<void> {
    const pid = this.child?.pid
    if (pid === undefined) throw new Error('no redis-server to hang')
    process.kill(pid, 'SIGSTOP')
    // /proc/<pid>/stat: "pid (comm) state ..."; T is stopped.
    while (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'T') await sleep(5)
  }

  /** Lets a hung server run on. */
  resume(): void {
    if (this.child?.pid !== undefined) process.kill(this.child.pid, 'SIGCONT')
  }
}
