/**
 * `acceptPending`: what `serve()` on Deno and Bun waits for before it stops listening. Closing a
 * listening socket resets every connection the kernel completed but the server had not accepted yet;
 * a client (or a proxy) has already written its request on it, and reads a reset instead of an answer.
 * Node's serve watches its `'connection'` events for the same reason; `Deno.serve` and `Bun.serve`
 * have none, so the requests the server sees arriving stand in for them.
 * @module
 */

/** Event-loop turns {@linkcode acceptPending} waits at most for one in which no request arrived. */
export const MAX_ACCEPT_TURNS = 64;

/**
 * Resolves after an event-loop turn in which no request arrived (`arrived()` counts them), at least
 * the second turn from now (the runtime accepts what is pending when it polls), at most
 * {@linkcode MAX_ACCEPT_TURNS} turns.
 */
export async function acceptPending(arrived: () => number): Promise<void> {
  let seen = arrived();
  await nextTurn();
  for (let turns = 0; turns < MAX_ACCEPT_TURNS; turns++) {
    await nextTurn();
    const now = arrived();
    if (now === seen) return;
    seen = now;
  }
}

/** The next macrotask: after the runtime's next poll for I/O. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
