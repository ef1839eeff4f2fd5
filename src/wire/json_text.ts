/**
 * `JsonText`: a message already serialized, for the rare reply whose JSON cannot come from
 * `JSON.stringify` (an id beyond 2^53 echoed byte for byte).
 * @module
 */

/** JSON text the channel writes as is (one line: it must hold no raw newline, which JSON text never does). */
export class JsonText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}
