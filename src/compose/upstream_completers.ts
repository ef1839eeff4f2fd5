/**
 * The completers a {@linkcode MountedServer} registers for the arguments of an upstream prompt or
 * resource template: each forwards `completion/complete` to the upstream.
 * @module
 */
import type { HandlerContext } from "../server/features/handler_context.ts";

/** A completer of one argument, as the composing server's registries take it. */
export type UpstreamCompleter = (
  value: string,
  c: { arguments: Readonly<Record<string, string>>; handler: HandlerContext },
) => Promise<string[]>;

/**
 * A completer for each argument in `names` of the prompt or template `ref`, asking the upstream
 * through `forward` (the other arguments go along as its context).
 */
export function upstreamCompleters(
  ref: Record<string, unknown>,
  names: readonly string[],
  forward: (method: string, params: Record<string, unknown>, context: HandlerContext) => Promise<unknown>,
): Record<string, UpstreamCompleter> {
  const out: Record<string, UpstreamCompleter> = {};
  for (const name of names) {
    out[name] = async (value, c) => {
      const others = Object.fromEntries(Object.entries(c.arguments).filter(([k]) => k !== name));
      const result = await forward("completion/complete", {
        ref,
        argument: { name, value },
        ...(Object.keys(others).length > 0 ? { context: { arguments: others } } : {}),
      }, c.handler) as { completion?: { values?: unknown } };
      const values = result?.completion?.values;
      return Array.isArray(values) ? values.filter((v): v is string => typeof v === "string") : [];
    };
  }
  return out;
}
