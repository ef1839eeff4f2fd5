/**
 * The MessagePort wire format: the five messages both ends exchange (see `mod.ts` for their meaning).
 * @module
 */

/** One message on the port. Anything without a known `omc` is not ours and is ignored. */
export type Wire =
  | { omc: "credit"; bytes: number }
  | { omc: "data"; bytes: ArrayBuffer }
  | { omc: "end" }
  | { omc: "abort"; reason: string }
  | { omc: "cancel"; reason: string };

/** Posts one message, transferring `transfer`; does nothing once the port is released. */
export type Post = (message: Wire, transfer?: ArrayBuffer[]) => void;

/** The kinds of {@linkcode Wire} message. */
export type WireKind = Wire["omc"];

const KINDS: ReadonlySet<string> = new Set<WireKind>(["credit", "data", "end", "abort", "cancel"]);

/** The message's kind and fields when `data` is one of ours, else undefined. Fields are checked by whoever takes them. */
export function readWire(data: unknown): { omc: WireKind; bytes?: unknown; reason?: unknown } | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const omc = (data as { omc?: unknown }).omc;
  return typeof omc === "string" && KINDS.has(omc) ? (data as { omc: WireKind }) : undefined;
}

/** The text an `abort` or `cancel` carries for `reason`. */
export function describe(reason: unknown): string {
  if (reason instanceof Error) return `${reason.name}: ${reason.message}`;
  return typeof reason === "string" ? reason : String(reason);
}
