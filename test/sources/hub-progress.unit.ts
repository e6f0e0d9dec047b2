/**
 * A download's bar: sized by the response (the Hub's size), fed every byte of the body and
 * closed when it ends; one per attempt, none for the client's 1-byte Range probe, none for a
 * file the cache already holds.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { formatBytes, type Progress, terminalProgress } from '../../src/util/progress.ts'
import { ARC, ARC_REV, CDN, FILE, FILE_BYTES, FILE_SHA, withRig } from '../helpers/hub-rig.ts'

interface Bar {
  label: string
  total: number | undefined
  bytes: number
  done: boolean
}

/** The test's own display: what each bar was told, in order. */
function recorder(): { progress: Progress; bars: Bar[] } {
  const bars: Bar[] = []
  const progress: Progress = {
    stage() {},
    rows() {},
    log() {},
    above: (write) => write(),
    end() {},
    file(label, total) {
      const bar: Bar = { label, total, bytes: 0, done: false }
      bars.push(bar)
      return { advance: (n) => void (bar.bytes += n), done: () => void (bar.done = true) }
    },
  }
  return { progress, bars }
}

const LABEL = `${ARC} ${FILE}`

test('a download shows one bar of the file: its total from the response, every byte, then done', () =>
  withRig(async ({ fetcher }) => {
    const { progress, bars } = recorder()
    const f = await fetcher({ progress }).fetchFile(ARC, ARC_REV, FILE)
    assert.equal(f.sha256, FILE_SHA)
    assert.deepEqual(
      bars,
      [{ label: LABEL, total: FILE_BYTES.length, bytes: FILE_BYTES.length, done: true }],
      'no bar for the 1-byte probe',
    )
    // warm: the cache vouches for it, nothing is downloaded, nothing drawn
    await fetcher({ progress }).fetchFile(ARC, ARC_REV, FILE)
    assert.equal(bars.length, 1)
  }))

test('a body cut short and retried: its bar is closed, and the next attempt has a bar of its own', () =>
  withRig(async ({ proxy, fetcher }) => {
    proxy.addFault({ match: CDN, fault: 'truncate', times: 1 })
    const { progress, bars } = recorder()
    await fetcher({ progress }).fetchFile(ARC, ARC_REV, FILE)
    assert.equal(bars.length, 2, JSON.stringify(bars))
    assert.ok(bars.every((b) => b.done && b.total === FILE_BYTES.length))
    assert.ok(bars[0]!.bytes < FILE_BYTES.length, 'the cut attempt got part of the file')
    assert.equal(bars[1]!.bytes, FILE_BYTES.length)
  }))

test('on a terminal the bar reads bytes of the total with rate and time left, and is gone when the file is in', () =>
  withRig(async ({ fetcher }) => {
    const writes: string[] = []
    let t = 0
    // every write one ms on: a rate and an ETA can be shown whatever the machine's speed
    const progress = terminalProgress({ write: (x) => writes.push(x), intervalMs: 0, columns: 200, now: () => (t += 1) })
    progress.stage('loading sources')
    await fetcher({ progress }).fetchFile(ARC, ARC_REV, FILE)
    const size = formatBytes(FILE_BYTES.length)
    const drawn = writes.join('')
    assert.ok(drawn.includes(`  ${LABEL}: 0 B / ${size} (0 %)`), drawn)
    assert.match(drawn, new RegExp(`${FILE.replaceAll('.', '\\.')}: ${size} / ${size} \\(100 %\\), [\\d.]+ [kMG]?B/s, 0 s left`))
    assert.equal(writes.at(-1), 'loading sources', 'the last draw has the stage alone: the bar went with the download')
  }))
