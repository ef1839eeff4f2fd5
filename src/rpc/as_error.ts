/** `value` as an `Error`: itself when it is one, else an `Error` with its text. */
export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
