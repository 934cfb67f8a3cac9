/**
 * A child process run to its end without blocking the test worker: `spawnSync` held the worker's
 * event loop for the whole run, and a run over a minute (a document's block on a loaded machine)
 * made vitest's worker time out its own reports ("Timeout calling onTaskUpdate"), failing the suite.
 */
import { spawn } from "node:child_process"

export interface ChildRun {
  readonly status: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  readonly pid: number | undefined
}

/**
 * Runs `command` with `args`; past `timeoutMillis` it is killed (SIGKILL) with everything it started:
 * it runs as a process group of its own, and the group is killed. Killing only the child (a shell)
 * left what the shell had started running: a documented command that ran the whole suite outlived
 * its timeout by ten minutes and held the PostgreSQL schemas the next run's cluster tests wanted.
 */
export const runChild = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv; readonly timeoutMillis: number }
): Promise<ChildRun> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"], detached: true })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => killGroup(child.pid, () => child.kill("SIGKILL")), options.timeoutMillis)
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on("close", (status, signal) => {
      clearTimeout(timer)
      resolve({ status, signal, stdout, stderr, pid: child.pid })
    })
  })

/** SIGKILL to the process group led by `pid`; `otherwise` when there is none (it ended, or never started). */
const killGroup = (pid: number | undefined, otherwise: () => void): void => {
  try {
    if (pid === undefined) throw new Error("no pid")
    process.kill(-pid, "SIGKILL")
  } catch {
    otherwise()
  }
}
