/**
 * `InputRequiredSignal`: what an ask without an answer throws into a modern handler to end the round.
 * @module
 */

const SIGNAL_BRAND: unique symbol = Symbol.for("onemodelcontext.inputRequiredSignal") as never;

/**
 * Thrown into a modern handler by an ask whose answer has not arrived: the round is over. Let it
 * propagate (rethrow what you do not recognise); if a handler swallows it, the round still ends with
 * `input_required` and the handler's value is discarded.
 */
export class InputRequiredSignal extends Error {
  /** The key of the input request that ended the round. */
  readonly key: string;
  constructor(key: string) {
    super(
      `Input required: the client has not answered input request ${
        JSON.stringify(key)
      } yet; this round ends and the request answers input_required`,
    );
    this.name = "InputRequiredSignal";
    this.key = key;
    Object.defineProperty(this, SIGNAL_BRAND, { value: true });
  }
  static override [Symbol.hasInstance](value: unknown): value is InputRequiredSignal {
    return typeof value === "object" && value !== null &&
      (value as { [SIGNAL_BRAND]?: unknown })[SIGNAL_BRAND] === true;
  }
}
