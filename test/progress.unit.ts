import assert from 'node:assert/strict'
import { test } from 'node:test'
import { columns } from '../src/util/columns.ts'
import { formatBytes, NO_PROGRESS, progressWanted, terminalProgress } from '../src/util/progress.ts'

/** A terminal that keeps what is on its screen: \r, erase-line and cursor-up are applied. */
function screen() {
  const lines: string[] = ['']
  let row = 0
  const write = (text: string) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the ANSI sequences a terminal sees are the point
    for (const part of text.split(/(\r|\n|\x1b\[K|\x1b\[1A)/)) {
      if (part === '\r') lines[row] = lines[row]!.slice(0, 0)
      else if (part === '\n') lines[++row] ??= ''
      else if (part === '\x1b[K') lines[row] = ''
      else if (part === '\x1b[1A') row--
      else lines[row] += part
    }
  }
  return { write, shown: () => lines.slice(0, row + 1).filter((l, i) => l !== '' || i < row) }
}

test('progress is wanted only on a TTY, not under CI, --quiet or HF_HUB_DISABLE_PROGRESS_BARS', () => {
  const tty = { isTTY: true }
  assert.equal(progressWanted(tty, {}), true)
  assert.equal(progressWanted({ isTTY: false }, {}), false)
  assert.equal(progressWanted({}, {}), false)
  assert.equal(progressWanted(tty, {}, true), false, '--quiet')
  assert.equal(progressWanted(tty, { CI: 'true' }), false)
  assert.equal(progressWanted(tty, { CI: '1' }), false)
  assert.equal(progressWanted(tty, { CI: 'false' }), true, 'CI=false is not CI')
  for (const v of ['1', 'ON', 'yes', 'True']) assert.equal(progressWanted(tty, { HF_HUB_DISABLE_PROGRESS_BARS: v }), false, v)
  assert.equal(progressWanted(tty, { HF_HUB_DISABLE_PROGRESS_BARS: '0' }), true)
})

test('a download shows its bytes, share, rate and time left; done removes it; end clears the screen', () => {
  let t = 0
  const s = screen()
  const p = terminalProgress({ write: s.write, now: () => t, intervalMs: 0 })
  p.stage('loading sources')
  const f = p.file('cais/mmlu all/test.parquet', 4 * 1024 * 1024)
  t = 1000
  f.advance(1024 * 1024)
  assert.deepEqual(s.shown(), ['loading sources', '  cais/mmlu all/test.parquet: 1.0 MB / 4.0 MB (25 %), 1.0 MB/s, 3 s left'])
  p.rows('mmlu', 14042, 14042)
  assert.equal(s.shown()[2], '  mmlu: 14,042 of 14,042 rows')
  f.done()
  assert.deepEqual(s.shown(), ['loading sources', '  mmlu: 14,042 of 14,042 rows'])
  p.log('hub: retrying in 2 s')
  assert.deepEqual(
    s.shown(),
    ['hub: retrying in 2 s', 'loading sources', '  mmlu: 14,042 of 14,042 rows'],
    'a logged line stays above the bars',
  )
  p.end()
  assert.deepEqual(s.shown(), ['hub: retrying in 2 s'], 'end leaves only what was logged')
  p.stage('after the end')
  assert.deepEqual(s.shown(), ['hub: retrying in 2 s'], 'nothing is drawn after end')
})

test('redraws are throttled, lines are cut to the terminal width, an unknown size has no share or ETA', () => {
  let t = 0
  const writes: string[] = []
  const p = terminalProgress({ write: (x) => writes.push(x), now: () => t, intervalMs: 100, columns: 40 })
  const f = p.file('a-very-long-repository-name/with/a/long/path.parquet')
  const before = writes.length
  for (let i = 0; i < 50; i++) f.advance(10)
  assert.equal(writes.length, before, 'no redraw within the interval')
  t = 150
  f.advance(10)
  assert.ok(writes.length > before)
  const last = writes.at(-1)!
  assert.ok(last.length <= 39, `cut to the width: ${last}`)
  assert.ok(last.endsWith('…'))
  assert.doesNotMatch(last, /%|left/)
})

test('the no-op progress draws nothing; byte sizes read as people write them', () => {
  NO_PROGRESS.stage('x')
  NO_PROGRESS.file('x', 1).advance(1)
  NO_PROGRESS.end()
  assert.equal(formatBytes(512), '512 B')
  assert.equal(formatBytes(1536), '1.5 kB')
  assert.equal(formatBytes(20 * 1024 * 1024), '20 MB')
})

test('above takes the bars off while another stream prints, then draws them again; a new stage drops the rows of the last', () => {
  const s = screen()
  const p = terminalProgress({ write: s.write, now: () => 0, intervalMs: 0 })
  p.stage('loading sources (1 of 2: mmlu)')
  p.rows('mmlu test', 80, 80)
  // stdout sharing the terminal: the line lands where the bars were, and they come back below it
  p.above(() => s.write('a line on stdout\n'))
  assert.deepEqual(s.shown(), ['a line on stdout', 'loading sources (1 of 2: mmlu)', '  mmlu test: 80 of 80 rows'])
  p.stage('loading sources (2 of 2: boolq)')
  assert.deepEqual(s.shown(), ['a line on stdout', 'loading sources (2 of 2: boolq)'])
  p.end()
  let printed = false
  p.above(() => (printed = true))
  assert.ok(printed, 'after the end, above only prints')
  assert.deepEqual(s.shown(), ['a line on stdout'])
})

test('a terminal of 0 columns (a pty with no size, as under script) is taken as 80 wide, not cut to nothing', () => {
  const writes: string[] = []
  const p = terminalProgress({ write: (x) => writes.push(x), columns: 0, intervalMs: 0, now: () => 0 })
  p.stage('loading and preparing sources (1 of 5: jcommonsenseqa)')
  assert.equal(writes.at(-1), 'loading and preparing sources (1 of 5: jcommonsenseqa)')
})

test('a line of wide characters is cut by the columns it takes, not its length, so it never wraps', () => {
  const writes: string[] = []
  const p = terminalProgress({ write: (x) => writes.push(x), columns: 30, intervalMs: 0, now: () => 0 })
  p.stage('writing /home/ユーザー/データセット/出力/')
  const last = writes.at(-1)!
  assert.ok(columns(last) <= 29, `${last}: ${columns(last)} columns`)
  assert.ok(last.endsWith('…'))
  assert.ok(last.length < 29, 'shorter in code units than an ASCII line would be')
})
