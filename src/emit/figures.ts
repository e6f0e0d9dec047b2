import { N_CHOICES, SPLITS } from '../recipe/schema.ts'
import type { Audit } from './audit.ts'
import type { DatasetStats } from './stats.ts'

/**
 * The card's figures: small SVG bar charts drawn from the same figures as the
 * card's tables. Every coordinate and label is an integer or a number with a
 * fixed count of decimals, and nothing depends on the machine (no fonts are
 * measured, no dates), so they are part of the byte-identical build.
 */
export interface Figure {
  /** file name in the output folder */
  name: FigureName
  /** what the card's image link says */
  alt: string
  svg: string
}

interface Series {
  label: string
  colour: string
  values: readonly number[]
}

interface Chart {
  title: string
  /** one label per bar group */
  categories: readonly string[]
  series: readonly Series[]
  /** stacked (one bar per group) or side by side */
  stacked?: boolean
  /** a marker per group and series drawn over the bars, e.g. the count a uniform draw would give */
  expected?: { label: string; values: readonly (readonly number[])[] }
}

const WIDTH = 640
const HEIGHT = 320
const MARGIN = { top: 60, right: 16, bottom: 40, left: 56 }
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom
/** the colour-blind-safe pair of Okabe and Ito's palette */
const BLUE = '#0072B2'
const ORANGE = '#E69F00'
/** the uniform marker: black dashes show over either colour of bar (grey did not over blue) */
const MARKER = '#000000'

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
/** one decimal, the same text on every machine */
const px = (x: number) => (Math.round(x * 10) / 10).toFixed(1)

/** A step for the y axis giving about 5 grid lines: 1, 2 or 5 times a power of ten (integers: the axes count items). */
function niceStep(max: number): number {
  const raw = max / 5
  let pow = 1
  while (pow * 10 <= raw) pow *= 10
  for (const m of [1, 2, 5]) if (m * pow >= raw) return m * pow
  return 10 * pow
}

export function barChart(chart: Chart): string {
  const groups = chart.categories.length
  const totals = chart.categories.map((_, g) =>
    chart.stacked ? chart.series.reduce((s, x) => s + (x.values[g] ?? 0), 0) : Math.max(...chart.series.map((x) => x.values[g] ?? 0)),
  )
  const expectedMax = chart.expected ? Math.max(...chart.expected.values.flat()) : 0
  const step = niceStep(Math.max(...totals, expectedMax))
  const top = Math.max(step, Math.ceil(Math.max(...totals, expectedMax) / step) * step)
  const y = (v: number) => MARGIN.top + PLOT_H - (v / top) * PLOT_H
  const groupW = PLOT_W / groups
  const bars = chart.stacked ? 1 : chart.series.length
  const barW = (groupW * 0.7) / bars
  const out: string[] = []
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
  )
  out.push(`<title>${escapeXml(chart.title)}</title>`)
  out.push(`<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`)
  out.push(`<text x="${MARGIN.left}" y="20" font-size="14" font-weight="bold">${escapeXml(chart.title)}</text>`)
  // legend
  const legend = [
    ...chart.series.map((s) => ({ label: s.label, colour: s.colour, marker: false })),
    ...(chart.expected ? [{ label: chart.expected.label, colour: MARKER, marker: true }] : []),
  ]
  let lx = MARGIN.left
  for (const item of legend) {
    if (item.marker)
      out.push(`<line x1="${lx}" y1="34" x2="${lx + 14}" y2="34" stroke="${MARKER}" stroke-width="2" stroke-dasharray="3 2"/>`)
    else out.push(`<rect x="${lx}" y="28" width="12" height="12" fill="${item.colour}"/>`)
    out.push(`<text x="${lx + 18}" y="38">${escapeXml(item.label)}</text>`)
    // no font is measured: a fixed advance per character, generous enough for sans-serif
    lx += 18 + 7 * item.label.length + 16
  }
  // grid and y labels
  for (let v = 0; v <= top; v += step) {
    out.push(`<line x1="${MARGIN.left}" y1="${px(y(v))}" x2="${WIDTH - MARGIN.right}" y2="${px(y(v))}" stroke="#dddddd"/>`)
    out.push(`<text x="${MARGIN.left - 6}" y="${px(y(v) + 4)}" text-anchor="end">${v}</text>`)
  }
  for (let g = 0; g < groups; g++) {
    const x0 = MARGIN.left + g * groupW + groupW * 0.15
    let base = 0
    chart.series.forEach((s, i) => {
      const v = s.values[g] ?? 0
      const x = chart.stacked ? x0 : x0 + i * barW
      const y0 = chart.stacked ? base : 0
      out.push(
        `<rect x="${px(x)}" y="${px(y(y0 + v))}" width="${px(barW)}" height="${px(y(y0) - y(y0 + v))}" fill="${s.colour}"><title>${escapeXml(`${chart.categories[g]}, ${s.label}: ${v}`)}</title></rect>`,
      )
      if (chart.stacked) base += v
      const e = chart.expected?.values[i]?.[g]
      if (e !== undefined)
        out.push(
          `<line x1="${px(x)}" y1="${px(y(e))}" x2="${px(x + barW)}" y2="${px(y(e))}" stroke="${MARKER}" stroke-width="2" stroke-dasharray="3 2"/>`,
        )
    })
    out.push(
      `<text x="${px(MARGIN.left + (g + 0.5) * groupW)}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">${escapeXml(chart.categories[g]!)}</text>`,
    )
  }
  out.push(
    `<line x1="${MARGIN.left}" y1="${MARGIN.top + PLOT_H}" x2="${WIDTH - MARGIN.right}" y2="${MARGIN.top + PLOT_H}" stroke="#000000"/>`,
  )
  out.push('</svg>')
  return `${out.join('\n')}\n`
}

const POSITIONS = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H']

/** The figures' files, and what the card's image link says of each, in the order they are made. */
export const FIGURES = [
  { name: 'option-counts.svg', alt: 'Items by number of options, test and val' },
  { name: 'answer-positions.svg', alt: 'Position of the right answer against a uniform shuffle' },
  { name: 'borrowed-options.svg', alt: 'Upstream and borrowed options of test items by number of options' },
] as const
export type FigureName = (typeof FIGURES)[number]['name']

/** The card's relative image link to a figure, which the Hub renders from the repo's file. */
export function figureLink(name: FigureName): string {
  const f = FIGURES.find((x) => x.name === name)!
  return `![${f.alt}](${f.name})`
}

/** The three figures of the card, from the card's own statistics and the distractor audit. */
export function renderFigures(stats: DatasetStats, audit: Audit): Figure[] {
  const counts = N_CHOICES.map(String)
  const optionCounts = barChart({
    title: 'Items by number of options',
    categories: counts.map((n) => `${n} options`),
    series: SPLITS.map((split, i) => ({
      label: split,
      colour: i === 0 ? BLUE : ORANGE,
      values: counts.map((n) => stats.byChoices[split][n] ?? 0),
    })),
  })
  const answerPositions = barChart({
    title: 'Position of the right answer (test and val), against a uniform shuffle',
    categories: POSITIONS,
    series: SPLITS.map((split, i) => ({ label: split, colour: i === 0 ? BLUE : ORANGE, values: stats.answerPositions[split] })),
    expected: { label: 'uniform', values: SPLITS.map((split) => stats.expectedPositions[split].map((e) => Math.round(e * 10) / 10)) },
  })
  const grownCounts = counts.filter((n) => Number(n) > 2)
  const options = (split: (typeof SPLITS)[number], n: string) => Number(n) * (audit[split].byChoices[n]?.items ?? 0)
  const borrowed = (split: (typeof SPLITS)[number], n: string) => audit[split].byChoices[n]?.borrowed ?? 0
  const borrowedOptions = barChart({
    title: 'Options of test items by number of options: upstream and borrowed',
    categories: grownCounts.map((n) => `${n} options`),
    stacked: true,
    series: [
      { label: 'upstream', colour: BLUE, values: grownCounts.map((n) => options('test', n) - borrowed('test', n)) },
      { label: 'borrowed', colour: ORANGE, values: grownCounts.map((n) => borrowed('test', n)) },
    ],
  })
  const svgs: Record<FigureName, string> = {
    'option-counts.svg': optionCounts,
    'answer-positions.svg': answerPositions,
    'borrowed-options.svg': borrowedOptions,
  }
  return FIGURES.map((f) => ({ ...f, svg: svgs[f.name] }))
}
