/**
 * `UriTemplate`: an RFC 6570 URI template of levels 1 to 3, matched against concrete URIs (what
 * `resources/read` needs) and expanded from variables.
 * @module
 */
import { InvalidOptionError } from "../../wire/errors.ts";
import { type MatchStep, matchSteps } from "./uri_template_matcher.ts";

/** The variables a template match produced: every variable that appeared in the URI, decoded. */
export type UriVariables = Record<string, string>;

interface Operator {
  readonly first: string;
  readonly separator: string;
  readonly named: boolean;
  /** `+` and `#`: reserved characters are kept as they are. */
  readonly reserved: boolean;
  /** Characters a value of this operator never contains when matching (`undefined`: any character). */
  readonly stops: string | undefined;
}

const OPERATORS: Record<string, Operator> = {
  "": { first: "", separator: ",", named: false, reserved: false, stops: "/?#," },
  "+": { first: "", separator: ",", named: false, reserved: true, stops: undefined },
  "#": { first: "#", separator: ",", named: false, reserved: true, stops: undefined },
  ".": { first: ".", separator: ".", named: false, reserved: false, stops: "/?#." },
  "/": { first: "/", separator: "/", named: false, reserved: false, stops: "/?#" },
  ";": { first: ";", separator: ";", named: true, reserved: false, stops: ";/?#" },
  "?": { first: "?", separator: "&", named: true, reserved: false, stops: "#" },
  "&": { first: "&", separator: "&", named: true, reserved: false, stops: "#" },
};

interface Expression {
  readonly operator: Operator;
  readonly names: readonly string[];
}

type Part = string | Expression;

const VARIABLE_NAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;
const MAX_TEMPLATE_LENGTH = 4096;

/**
 * A URI template (RFC 6570 levels 1–3: `{var}`, `{+var}`, `{#var}`, `{.var}`, `{/var}`, `{;var}`,
 * `{?var}`, `{&var}`, several variables per expression). Level 4 modifiers (`{var*}`, `{var:3}`)
 * are refused.
 *
 * Matching is lenient where clients are: a simple `{var}` matches up to the next `/`, `?`, `#` or
 * `,`; `{+var}` and `{#var}` match any characters; query expressions (`{?a,b}`) match their
 * parameters in any order and ignore unknown ones. Values are percent-decoded.
 *
 * @example
 * ```ts ignore (UriTemplate is internal: the package does not export it)
 * const template = new UriTemplate("test://template/{id}/data");
 * template.match("test://template/123/data"); // { id: "123" }
 * template.expand({ id: "a b" }); // "test://template/a%20b/data"
 * ```
 */
export class UriTemplate {
  /** The template as given. */
  readonly template: string;
  /** The variable names, in order of appearance. */
  readonly variables: readonly string[];
  readonly #parts: readonly Part[];
  readonly #steps: readonly MatchStep[];

  /** Throws {@linkcode InvalidOptionError} for a malformed template or a level 4 expression. */
  constructor(template: string) {
    if (typeof template !== "string") {
      throw new InvalidOptionError(`A URI template must be a string, got ${typeof template}`);
    }
    if (template.length > MAX_TEMPLATE_LENGTH) {
      throw new InvalidOptionError(
        `URI template is ${template.length} characters long, more than ${MAX_TEMPLATE_LENGTH}`,
      );
    }
    this.template = template;
    this.#parts = parse(template);
    this.variables = this.#parts.flatMap((part) => (typeof part === "string" ? [] : part.names));
    this.#steps = this.#parts.map(stepOf);
  }

  /** True when the template has no expression (it names exactly one URI). */
  get isStatic(): boolean {
    return this.variables.length === 0;
  }

  /**
   * The variables of `uri` when it matches the template, else `undefined`. Time is linear in the
   * length of `uri` for a given template (no backtracking), so client input cannot stall a server.
   */
  match(uri: string): UriVariables | undefined {
    const found = matchSteps(this.#steps, uri);
    if (!found) return undefined;
    const variables: UriVariables = Object.create(null);
    let group = 0;
    for (const part of this.#parts) {
      if (typeof part === "string") continue;
      if (!assign(part, found[group++], variables)) return undefined;
    }
    return variables;
  }

  /** The URI for `variables`; a variable that is absent is left out, as RFC 6570 says. */
  expand(variables: Readonly<Record<string, string | number | boolean | undefined>>): string {
    let out = "";
    for (const part of this.#parts) {
      if (typeof part === "string") {
        out += part;
        continue;
      }
      const { operator } = part;
      const pieces: string[] = [];
      for (const name of part.names) {
        const raw = variables[name];
        if (raw === undefined) continue;
        const value = encode(String(raw), operator.reserved);
        if (!operator.named) pieces.push(value);
        else if (value === "" && operator.first === ";") pieces.push(name);
        else pieces.push(`${name}=${value}`);
      }
      if (pieces.length > 0) out += operator.first + pieces.join(operator.separator);
    }
    return out;
  }

  toString(): string {
    return this.template;
  }
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let index = 0;
  while (index < template.length) {
    const open = template.indexOf("{", index);
    const close = template.indexOf("}", index);
    if (close !== -1 && (open === -1 || close < open)) {
      throw new InvalidOptionError(
        `URI template ${JSON.stringify(template)} has a "}" without "{" at ${close}`,
      );
    }
    if (open === -1) {
      parts.push(template.slice(index));
      break;
    }
    if (open > index) parts.push(template.slice(index, open));
    if (close === -1) {
      throw new InvalidOptionError(`URI template ${JSON.stringify(template)} has an unclosed "{" at ${open}`);
    }
    parts.push(expression(template, template.slice(open + 1, close)));
    index = close + 1;
  }
  return parts;
}

function expression(template: string, body: string): Expression {
  const symbol = body.length > 0 && Object.hasOwn(OPERATORS, body[0]) ? body[0] : "";
  if (body.length > 0 && "=,!@|".includes(body[0])) {
    throw new InvalidOptionError(
      `URI template ${JSON.stringify(template)} uses the reserved operator ${JSON.stringify(body[0])}`,
    );
  }
  const names = body.slice(symbol.length).split(",");
  for (const name of names) {
    if (name.endsWith("*") || name.includes(":")) {
      throw new InvalidOptionError(
        `URI template ${
          JSON.stringify(template)
        } uses the level 4 modifier in {${body}}: only levels 1 to 3 are supported`,
      );
    }
    if (!VARIABLE_NAME.test(name)) {
      throw new InvalidOptionError(
        `URI template ${JSON.stringify(template)} has an invalid variable name ${JSON.stringify(name)}`,
      );
    }
  }
  return { operator: OPERATORS[symbol], names };
}

/** How one part matches: a literal, or an expression as a sequence of optional prefixed runs. */
function stepOf(part: Part): MatchStep {
  if (typeof part === "string") return { literal: part };
  const { operator, names } = part;
  switch (operator.first) {
    case "":
      // `{+var}` is lazy (the shortest value that lets the rest match), as it always was.
      if (operator.reserved) return { runs: [{ prefix: "", stops: undefined }], shortest: true };
      return { runs: [{ prefix: "", stops: names.length > 1 ? "/?#" : operator.stops }], shortest: false };
    case "#":
    case "?":
    case "&":
      return { runs: [{ prefix: operator.first, stops: operator.stops, optional: true }], shortest: false };
    default:
      return {
        runs: names.map(() => ({ prefix: operator.first, stops: operator.stops, optional: true })),
        shortest: false,
      };
  }
}

/** Reads one expression's matched text into `variables`; false when a value does not decode. */
function assign({ operator, names }: Expression, chunk: string, variables: UriVariables): boolean {
  if (chunk.length === 0) return true;
  const body = operator.first === "" ? chunk : chunk.slice(operator.first.length);
  const pieces = operator.reserved && names.length === 1 ? [body] : body.split(operator.separator);
  if (!operator.named) {
    for (let i = 0; i < names.length && i < pieces.length; i++) {
      const value = decode(pieces[i]);
      if (value === undefined) return false;
      variables[names[i]] = value;
    }
    return true;
  }
  for (const piece of pieces) {
    const eq = piece.indexOf("=");
    const name = eq === -1 ? piece : piece.slice(0, eq);
    if (!names.includes(name) || Object.hasOwn(variables, name)) continue;
    const value = decode(eq === -1 ? "" : piece.slice(eq + 1));
    if (value === undefined) return false;
    variables[name] = value;
  }
  return true;
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function encode(value: string, reserved: boolean): string {
  if (!reserved) {
    return encodeURIComponent(value).replace(
      /[!'()*]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    );
  }
  return encodeURI(value).replace(/%25([0-9A-Fa-f]{2})/g, "%$1");
}
