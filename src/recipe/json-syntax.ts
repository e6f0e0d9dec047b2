/**
 * Where JSON text breaks and why, in words a person fixing it by hand can use: a line and
 * column, the text around them with a caret, and what was expected there. JSON.parse gives
 * only a character position, and not always that.
 */

export interface JsonSyntaxError {
  /** code units from the start of the text */
  offset: number
  /** 1-based */
  line: number
  /** 1-based, in characters (code points) from the start of the line */
  column: number
  message: string
}

/** 1-based line and column of `offset`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let start = 0
  for (let i = 0; i < offset && i < text.length; i++)
    if (text[i] === '\n') {
      line++
      start = i + 1
    }
  return { line, column: [...text.slice(start, offset)].length + 1 }
}

/** A character as a message names it. */
function describe(text: string, i: number): string {
  const c = text.codePointAt(i)!
  if (c === 0x2f && (text[i + 1] === '/' || text[i + 1] === '*')) return 'a comment (JSON has none)'
  if (c === 0x27) return 'a single quote (JSON strings take double quotes)'
  if (c === 0xfeff) return 'a byte order mark (U+FEFF)'
  if (c < 0x20 || c === 0x7f) return `the control character U+${c.toString(16).toUpperCase().padStart(4, '0')}`
  return `'${String.fromCodePoint(c)}'`
}

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/
const WORD = /[-+.\w]+/y
const HEX4 = /^[0-9a-fA-F]{4}$/

/** The first syntax error of `text` as JSON (RFC 8259), or null when it is valid. Iterative, so any depth of nesting is fine. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | null {
  const stack: { close: '}' | ']'; at: number }[] = []
  let i = 0
  let state: 'value' | 'key' | 'colon' | 'after' = 'value'
  let opened = false // just after { or [, where the closing bracket may follow at once
  const fail = (at: number, message: string): JsonSyntaxError => ({ offset: at, ...lineColumn(text, at), message })
  /** The end of the string starting at i (its opening quote), or the error in it. */
  const string = (start: number): number | JsonSyntaxError => {
    for (let j = start + 1; j < text.length; j++) {
      const c = text.charCodeAt(j)
      if (c === 0x22) return j + 1
      if (c === 0x5c) {
        const e = text[j + 1]
        if (e === 'u') {
          if (!HEX4.test(text.slice(j + 2, j + 6))) return fail(j, 'a \\u escape needs four hex digits')
          j += 5
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) j++
        else if (e !== undefined) return fail(j, `\\${String.fromCodePoint(text.codePointAt(j + 1)!)} is not a JSON escape`)
      } else if (c === 0x0a) return fail(start, 'a string that is not closed on its line')
      else if (c < 0x20) return fail(j, `${describe(text, j)} inside a string (escape it)`)
    }
    return fail(start, 'the file ends inside the string that starts here')
  }
  for (;;) {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++
    if (i >= text.length) {
      if (state === 'after' && stack.length === 0) return null
      // the caret just after the last thing written, not on the empty line after it
      i = text.trimEnd().length
      const open = stack.at(-1)
      if (open) {
        const at = lineColumn(text, open.at)
        return fail(i, `the file ends inside the ${open.close === '}' ? 'object' : 'array'} opened at line ${at.line}, column ${at.column}`)
      }
      return fail(i, text.trim() === '' ? 'the file is empty' : 'the file ends where a value was expected')
    }
    const c = text[i]!
    const top = stack.at(-1)
    if (state === 'after') {
      if (!top) return fail(i, `${describe(text, i)} after the end of the JSON value`)
      if (c === ',') state = top.close === '}' ? 'key' : 'value'
      else if (c === top.close) stack.pop()
      else {
        const missing = c === '"' || c === '{' || c === '[' || /[-\w]/.test(c) ? ' (a comma missing?)' : ''
        return fail(
          i,
          `${describe(text, i)} where ',' or '${top.close}' was expected after ${top.close === '}' ? 'a property value' : 'an array element'}${missing}`,
        )
      }
      i++
      continue
    }
    if (state === 'colon') {
      if (c !== ':') return fail(i, `${describe(text, i)} where ':' was expected after the property name`)
      state = 'value'
      i++
      continue
    }
    const justOpened = opened
    opened = false
    if (state === 'key') {
      if (c === '"') {
        const end = string(i)
        if (typeof end !== 'number') return end
        i = end
        state = 'colon'
      } else if (c === '}' && justOpened) {
        stack.pop()
        i++
        state = 'after'
      } else if (c === '}') return fail(i, "a comma before '}' with no property after it")
      else return fail(i, `${describe(text, i)} where a property name in double quotes was expected`)
      continue
    }
    // a value
    if (c === '{' || c === '[') {
      stack.push({ close: c === '{' ? '}' : ']', at: i })
      state = c === '{' ? 'key' : 'value'
      opened = true
      i++
      continue
    }
    if (c === ']' && justOpened) {
      stack.pop()
      i++
      state = 'after'
      continue
    }
    if (c === '"') {
      const end = string(i)
      if (typeof end !== 'number') return end
      i = end
      state = 'after'
      continue
    }
    WORD.lastIndex = i
    const word = WORD.exec(text)?.[0]
    if (word !== undefined) {
      if (!NUMBER.test(word) && word !== 'true' && word !== 'false' && word !== 'null')
        return fail(i, `${word} is not a JSON value (a string in double quotes, a number, true, false, null, an object or an array)`)
      i += word.length
      state = 'after'
      continue
    }
    if (c === ']' && top?.close === ']') return fail(i, "a comma before ']' with no element after it")
    if ((c === '}' || c === ',') && top?.close === '}') return fail(i, `${describe(text, i)} where the property's value was expected`)
    return fail(i, `${describe(text, i)} where a value was expected`)
  }
}

/** The line of `offset` (and the one before it, for context) numbered, and a caret under the column; long lines cut around it. */
export function excerpt(text: string, offset: number): string[] {
  const { line, column } = lineColumn(text, offset)
  const lines = text.split('\n')
  const width = String(line).length
  const show = (n: number, from: number) => {
    const chars = [...(lines[n - 1] ?? '').replace(/\r$/, '')]
    const cut = chars.slice(from, from + 100).join('')
    return `  ${String(n).padStart(width)} | ${from > 0 ? '…' : ''}${cut}${chars.length > from + 100 ? '…' : ''}`
  }
  // a window of 100 characters that holds the column
  const from = Math.max(0, column - 60)
  const before = line > 1 && (lines[line - 2] ?? '').trim() !== '' ? [show(line - 1, 0)] : []
  const here = [...(lines[line - 1] ?? '')].slice(from, column - 1)
  // tabs kept, so the caret lines up in a terminal as the text does
  const pad = here.map((ch) => (ch === '\t' ? '\t' : ' ')).join('')
  return [...before, show(line, from), `  ${' '.repeat(width)} | ${from > 0 ? ' ' : ''}${pad}^`]
}

/** "at line L, column C: what\n<excerpt>", or null when `text` is valid JSON. */
export function describeJsonSyntaxError(text: string): { line: number; column: number; text: string } | null {
  const e = findJsonSyntaxError(text)
  if (!e) return null
  return {
    line: e.line,
    column: e.column,
    text: [`at line ${e.line}, column ${e.column}: ${e.message}`, ...excerpt(text, e.offset)].join('\n'),
  }
}
