/** What an option's text looks like, for Amendment 1.1's like-for-like and label rules, and near-copies. */
import { codePointLength } from '../util/canonical.ts'
import { Tokenizer } from './tokens.ts'

// optional sign or approximation, optional currency, a number (grouped, decimal, fraction or
// scientific), then at most a short unit: "7.0", "-3 °C", "$40,000", "2.5 × 10^3 N", "12%", "3 m/s"
const NUMBER =
  /^[+\-−±~≈]?\s?[$€£¥₹]?\s?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?(\/\d+)?(\s?[x×*·]\s?10\^?\s?[-−]?\d+)?\s?(%|‰|[\p{L}°µ/²³·.\-^\s]{0,16})$/u
const DIGIT = /\d/
// "three", "twenty-one", "a hundred": a number written out is a number too ("eight years" among "three", "four")
const UNITS =
  'zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen'
const TENS = 'twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety'
const WORD_NUMBER = new RegExp(
  String.raw`^(a |an )?((${TENS})(-(${UNITS}))?|${UNITS}|hundred|thousand|million|billion|dozen)( (hundred|thousand|million|billion))?(\s|$)`,
  'iu',
)

/** A number, optionally signed, with a unit, a % or a currency sign; or a number written as a word. */
export function isNumberLike(text: string): boolean {
  const t = text.trim()
  let unit: string
  const word = WORD_NUMBER.exec(t)
  if (word) unit = t.slice(word[0].length)
  else if (DIGIT.test(t) && NUMBER.test(t)) unit = t.replace(/^[^\p{L}%‰°µ]*/u, '')
  else return false
  // the unit may be words, but not a phrase: "3 apples and 2 pears" is not a number
  return unit.split(/\s+/).filter((w) => w !== '').length <= 2 && !DIGIT.test(unit)
}

// units of one quantity count as one: "5 cm" among "5 m" and "5 km" is a fair distractor, "5 s" among watts is not
const DIMENSIONS: Record<string, string> = {}
for (const [dimension, units] of Object.entries({
  time: 'ms millisecond s sec second min minute h hr hour day week month yr year decade century centuries 秒 分 時間 日 週間 か月 ヶ月 年',
  length:
    'nm µm um micrometer micrometre mm millimeter millimetre cm centimeter centimetre m meter metre km kilometer kilometre in inch inches ft foot feet yd yard mi mile light-year',
  area: 'mm² cm² m² km² mm^2 cm^2 m^2 km^2 acre hectare ha',
  volume: 'ml milliliter millilitre l liter litre cl dl cm³ m³ cm^3 m^3 cc gallon quart pint cup',
  mass: 'µg mg milligram g gram kg kilogram lb lbs pound oz ounce t ton tonne',
  temperature: '° °c °f degree degrees celsius degrees fahrenheit kelvin',
  speed: 'm/s m/sec m/h km/s km/sec km/h km/hr mph kph mi/h cm/s',
  percent: '% percent per cent',
  energy: 'j joule kj kilojoule cal calorie kcal kilocalorie ev',
  power: 'w watt kw kilowatt mw megawatt',
  force: 'n newton kn',
  money: 'dollar cent euro yen 円 ドル',
}))
  for (const u of units.split(' ')) DIMENSIONS[u] = dimension

/**
 * The quantity a number option is in: a dimension for a known unit (time, length, money …), the
 * unit itself (singular) otherwise, "" for a bare number; null when the text is not a number.
 */
export function unitOf(text: string): string | null {
  const t = text.trim()
  if (!isNumberLike(t)) return null
  if (/[$€£¥₹]/u.test(t)) return 'money'
  const word = WORD_NUMBER.exec(t)
  const unit = (word ? t.slice(word[0].length) : t.replace(/^[^\p{L}%‰°µ]*/u, ''))
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s.]+$/u, '')
    .trim()
    .replace(/\s+/gu, ' ')
  if (unit === '') return ''
  const singular = unit.length > 3 && unit.endsWith('s') && !unit.endsWith('ss') ? unit.slice(0, -1) : unit
  return DIMENSIONS[unit] ?? DIMENSIONS[singular] ?? singular
}

/**
 * Whether the number options of an item are in one quantity: none has a unit,
 * or all have units of the same dimension. "5 seconds" among watts, or a bare
 * number among lengths, fails; options that are not numbers are not compared.
 */
export function unitsAgree(options: readonly string[]): boolean {
  const units = new Set(options.map(unitOf).filter((u) => u !== null))
  return units.size <= 1
}

// "(A) …", "A. …", "A) …", or a lone letter: shown as "E: (E) …" it would carry a second label
const LABEL_LIKE = /^\s*(\([a-h]\)|[a-h][.)](\s|$)|[a-h]\s*$)/iu

/** Looks like an option label, A–H, so it cannot be lent under another label. */
export function isLabelLike(text: string): boolean {
  return LABEL_LIKE.test(text)
}

/** How an item's own options constrain what it may borrow. */
export type NumberClass = 'numbers' | 'words' | 'mixed'

export function numberClass(options: readonly string[]): NumberClass {
  const n = options.filter(isNumberLike).length
  return n === options.length ? 'numbers' : n === 0 ? 'words' : 'mixed'
}

/** Whether an option fits an item whose own options are of `cls`. */
export function fitsClass(cls: NumberClass, text: string): boolean {
  return cls === 'mixed' || (cls === 'numbers') === isNumberLike(text)
}

/** The surface of an option a reader sees first: the case it starts with and how it ends. */
function caseOf(text: string): string {
  const m = /\p{L}/u.exec(text)
  return !m ? 'none' : /\p{Lu}/u.test(m[0]) ? 'upper' : /\p{Ll}/u.test(m[0]) ? 'lower' : 'none'
}

function endingOf(text: string): string {
  const last = text.trimEnd().slice(-1)
  return last === '.' || last === '?' || last === '!' || last === '。' || last === '？' ? last : 'none'
}

/**
 * Whether a borrowed option has the form of the item's own: a case and an
 * ending that one of them has, and a length (code points) from half the
 * shortest to twice the longest. A sentence among fragments, or a long
 * clause among single words, is dismissed without knowing the answer.
 */
export function formFilter(own: readonly string[]): (text: string) => boolean {
  const cases = new Set(own.map(caseOf))
  const endings = new Set(own.map(endingOf))
  const lengths = own.map((o) => codePointLength(o.trim()))
  const lo = Math.min(...lengths) / 2
  const hi = Math.max(...lengths) * 2
  return (text) => {
    const n = codePointLength(text.trim())
    return n >= lo && n <= hi && cases.has(caseOf(text)) && endings.has(endingOf(text))
  }
}

const JAPANESE_TEXT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u
const bare = (norm: string) => norm.replace(/[^\p{L}\p{N}]/gu, '')

/**
 * Whether a normalised option nearly copies one of the item's own: its words
 * (Japanese: bigrams) are a subset or superset of one's, or, in Japanese, one
 * contains the other. "Liquid changes to solid." next to "A liquid changes to
 * a solid.", "Mount Olympus" next to "Olympus", マット next to ラグマット:
 * too often a second right answer, and never a fair distractor.
 */
export function nearCopyTest(ownNorms: readonly string[], shapes: NearCopyShapes = new NearCopyShapes()): (norm: string) => boolean {
  const own = ownNorms.map((n) => shapes.of(n))
  return (norm) => {
    const { ids, bare: b, japanese } = shapes.of(norm)
    return own.some(
      (o) =>
        (ids.size > 0 && o.ids.size > 0 && (subset(ids, o.ids) || subset(o.ids, ids))) ||
        ((japanese || o.japanese) && b !== '' && o.bare !== '' && (b.includes(o.bare) || o.bare.includes(b))),
    )
  }
}

interface Shape {
  ids: ReadonlySet<number>
  bare: string
  japanese: boolean
}

/**
 * What the near-copy test reads of a normalised option, worked out once per
 * text: a lending tests the same lenders' options for many items.
 */
export class NearCopyShapes {
  private readonly tokenizer = new Tokenizer()
  private readonly shapes = new Map<string, Shape>()

  of(norm: string): Shape {
    let s = this.shapes.get(norm)
    if (!s) this.shapes.set(norm, (s = { ids: new Set(this.tokenizer.ids(norm)), bare: bare(norm), japanese: JAPANESE_TEXT.test(norm) }))
    return s
  }
}

function subset(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  for (const x of a) if (!b.has(x)) return false
  return true
}
