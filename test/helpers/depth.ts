/**
 * How much of their work the tests that repeat one check many times do (seeded corruptions, kill points,
 * edits of a recipe): `npm test` runs a fixed part of their cases, so it stays quick on a 2-core machine;
 * JEV_TEST_FULL=1 runs every case, as CI does.
 */
export const FULL = process.env.JEV_TEST_FULL === '1'

/** `full` under JEV_TEST_FULL=1, else `quick`. */
export const depth = (full: number, quick: number): number => (FULL ? full : quick)

/** How a test names the share it ran, for its diagnostics. */
export const depthNote = (ran: number, of: number): string => (ran === of ? `all ${of}` : `${ran} of ${of} (JEV_TEST_FULL=1 runs all)`)
