/** Whether a process still runs, for locks and temp files a killed build left behind. */

/** True when `pid` names a running process on this machine (also one owned by another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' // exists, owned by someone else
  }
}
