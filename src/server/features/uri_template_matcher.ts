/**
 * `matchSteps`: matches a URI against a URI template's parts in time linear in the URI's length (for
 * a given template), with no backtracking: a backward pass marks, for each expression's end, the
 * positions from which the rest of the template still matches; a forward pass then picks each
 * expression's value among the ends it can reach. A backtracking regular expression took seconds on a
 * 96 KiB URI against `{city}-{date}` and was cubic for `{x}{y}{z}`.
 * @module
 */

/** A run of one expression: an optional `prefix` followed by any number of characters not in `stops`. */
export interface MatchRun {
  readonly prefix: string;
  /** Characters the run's value never contains (`undefined`: any character). */
  readonly stops: string | undefined;
  /** The run may be absent altogether (its prefix included). */
  readonly optional?: boolean;
}

/** One part of a template: literal text, or an expression whose matched text is captured. */
export type MatchStep =
  | { readonly literal: string }
  | {
    readonly runs: readonly MatchRun[];
    /** Capture the shortest text that lets the rest match (else the longest). */
    readonly shortest: boolean;
  };

/**
 * The text each expression step of `steps` matched in `text` (in order), or `undefined` when `text`
 * does not match. Where several splits match, each expression from the left takes the longest value
 * (the shortest for `shortest` steps) that still lets the rest of the template match.
 */
export function matchSteps(steps: readonly MatchStep[], text: string): string[] | undefined {
  const n = text.length;
  // aliveAfter[k]: positions from which steps k + 1… match to the end (kept for expressions only).
  const aliveAfter: (Uint8Array | undefined)[] = new Array(steps.length);
  let alive: Uint8Array = new Uint8Array(n + 1);
  alive[n] = 1;
  for (let k = steps.length - 1; k >= 0; k--) {
    const step = steps[k];
    if ("literal" in step) {
      alive = backLiteral(text, step.literal, alive);
      continue;
    }
    aliveAfter[k] = alive;
    for (let r = step.runs.length - 1; r >= 0; r--) alive = backRun(text, step.runs[r], alive);
  }
  if (alive[0] !== 1) return undefined;
  const captured: string[] = [];
  let position = 0;
  for (let k = 0; k < steps.length; k++) {
    const step = steps[k];
    if ("literal" in step) {
      if (!text.startsWith(step.literal, position)) return undefined;
      position += step.literal.length;
      continue;
    }
    let reach: Uint8Array = new Uint8Array(n + 1);
    reach[position] = 1;
    for (const run of step.runs) reach = forwardRun(text, run, reach, position);
    const end = chooseEnd(reach, aliveAfter[k]!, position, step.shortest);
    if (end === -1) return undefined;
    captured.push(text.slice(position, end));
    position = end;
  }
  return position === n ? captured : undefined;
}

/** The first (`shortest`) or last position at or after `start` that is both reached and alive; -1 for none. */
function chooseEnd(reach: Uint8Array, alive: Uint8Array, start: number, shortest: boolean): number {
  if (shortest) {
    for (let q = start; q < reach.length; q++) if (reach[q] === 1 && alive[q] === 1) return q;
    return -1;
  }
  for (let q = reach.length - 1; q >= start; q--) if (reach[q] === 1 && alive[q] === 1) return q;
  return -1;
}

function allowed(stops: string | undefined, char: string): boolean {
  return stops === undefined || !stops.includes(char);
}

function backLiteral(text: string, literal: string, after: Uint8Array): Uint8Array {
  const before = new Uint8Array(after.length);
  const last = text.length - literal.length;
  for (let x = 0; x <= last; x++) {
    if (after[x + literal.length] === 1 && text.startsWith(literal, x)) before[x] = 1;
  }
  return before;
}

function backRun(text: string, run: MatchRun, after: Uint8Array): Uint8Array {
  const n = text.length;
  const star = new Uint8Array(n + 1);
  star[n] = after[n];
  for (let x = n - 1; x >= 0; x--) {
    star[x] = after[x] === 1 || (star[x + 1] === 1 && allowed(run.stops, text[x])) ? 1 : 0;
  }
  if (run.prefix === "") return star;
  const before = new Uint8Array(n + 1);
  const width = run.prefix.length;
  for (let x = 0; x <= n; x++) {
    if (
      (run.optional && after[x] === 1) ||
      (x + width <= n && star[x + width] === 1 && text.startsWith(run.prefix, x))
    ) {
      before[x] = 1;
    }
  }
  return before;
}

function forwardRun(text: string, run: MatchRun, from: Uint8Array, start: number): Uint8Array {
  const n = text.length;
  let entered: Uint8Array = from;
  if (run.prefix !== "") {
    entered = new Uint8Array(n + 1);
    const width = run.prefix.length;
    for (let x = start; x + width <= n; x++) {
      if (from[x] === 1 && text.startsWith(run.prefix, x)) entered[x + width] = 1;
    }
  }
  const out = new Uint8Array(n + 1);
  let current = 0;
  for (let x = start; x <= n; x++) {
    current = entered[x] === 1 || (current === 1 && allowed(run.stops, text[x - 1])) ? 1 : 0;
    out[x] = current === 1 || (run.optional === true && from[x] === 1) ? 1 : 0;
  }
  return out;
}
