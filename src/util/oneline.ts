/** A message on one line: line breaks and the white space around them become one space. */
export const oneLine = (s: string): string => s.replace(/\s*[\r\n]+\s*/g, ' ')
