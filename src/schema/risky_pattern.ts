/**
 * `riskyPattern`: whether a regular expression can backtrack catastrophically, found by one linear scan
 * of its source. JavaScript's engine backtracks, and a pattern such as `^(a+)+$` takes time
 * exponential in the length of a string that almost matches: a schema from a peer must not be able to
 * freeze the process that validates against it. The check is conservative (some safe patterns are
 * flagged too): a repeated group that holds a variable quantifier or an alternation (`(a+)+`,
 * `(a|aa)*`, `(\w+\s?)*`), and backreferences.
 * @module
 */

/** Why `source` may backtrack catastrophically, or `undefined` when it cannot by the rule above. */
export function riskyPattern(source: string): string | undefined {
  // One frame per open group: whether it holds a variable quantifier or an alternation.
  const frames: boolean[] = [false];
  /** What the last atom was: a group whose inside varies, another atom, or nothing to quantify. */
  let last: "varying-group" | "atom" | "none" = "none";
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (char === "\\") {
      const next = source[i + 1] ?? "";
      if (/[1-9]/.test(next) || (next === "k" && source[i + 2] === "<")) return "it uses a backreference";
      i++;
      last = "atom";
    } else if (char === "[") {
      // A class is one atom: skip to its closing bracket (escapes inside included).
      i++;
      if (source[i] === "^") i++;
      if (source[i] === "]") i++;
      while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
      last = "atom";
    } else if (char === "(") {
      frames.push(false);
      if (source[i + 1] === "?") {
        // (?: (?= (?! (?<= (?<! (?<name>: skip the group's prefix.
        i += 2;
        if (source[i] === "<" && source[i + 1] !== "=" && source[i + 1] !== "!") {
          while (i < source.length && source[i] !== ">") i++;
        } else if (source[i] === "<") i++;
      }
      last = "none";
    } else if (char === ")") {
      const varying = frames.length > 1 ? frames.pop()! : false;
      if (varying) frames[frames.length - 1] = true;
      last = varying ? "varying-group" : "atom";
    } else if (char === "|") {
      frames[frames.length - 1] = true;
      last = "none";
    } else if (
      char === "*" || char === "+" || char === "?" ||
      (char === "{" && /^\{\d+(,\d*)?\}/.test(source.slice(i, i + 24)))
    ) {
      let repeats = char === "*" || char === "+";
      let varies = true;
      if (char === "{") {
        const [, min, comma, max] = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 24))!;
        const end = source.indexOf("}", i);
        varies = comma !== undefined && max !== String(Number(min));
        repeats = comma !== undefined ? max === "" || Number(max) > 1 : Number(min) > 1;
        i = end;
      }
      if (source[i + 1] === "?") i++; // lazy: backtracks the same way
      if (last === "varying-group" && repeats) {
        return "it repeats a group that can match in more than one way (nested quantifiers or an alternation)";
      }
      if (varies && last !== "none") frames[frames.length - 1] = true;
      last = "none";
    } else {
      last = "atom";
    }
  }
  return undefined;
}
