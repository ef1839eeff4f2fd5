/**
 * Phase lines on stderr while connecting: elapsed time per phase, a live spinner only on a TTY.
 * @module
 */
import { terminalText } from "./terminal_text.ts";

/** Writes progress to stderr; never to stdout. */
export class Progress {
  readonly #start = performance.now();
  readonly #tty: boolean;
  readonly #quiet: boolean;
  #spinner: ReturnType<typeof setInterval> | undefined;
  #frame = 0;

  constructor(options: { quiet?: boolean } = {}) {
    this.#tty = Boolean(process.stderr.isTTY);
    this.#quiet = options.quiet ?? false;
  }

  /** Milliseconds since the command started. */
  get elapsed(): number {
    return performance.now() - this.#start;
  }

  /** Prints one phase line (and keeps a spinner going after it on a TTY until the next phase). */
  phase(text: string, spin = false): void {
    this.stop();
    if (this.#quiet) return;
    process.stderr.write(`[${this.elapsed.toFixed(0).padStart(5)} ms] ${terminalText(text)}\n`);
    if (spin && this.#tty) {
      const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
      this.#spinner = setInterval(() => {
        process.stderr.write(`\r${frames[this.#frame++ % frames.length]} ${(this.elapsed / 1000).toFixed(1)} s\x1b[K`);
      }, 80);
    }
  }

  /** Stops the spinner and clears its line. */
  stop(): void {
    if (this.#spinner === undefined) return;
    clearInterval(this.#spinner);
    this.#spinner = undefined;
    process.stderr.write("\r\x1b[K");
  }
}
