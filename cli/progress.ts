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
        process.stderr.write(
          `\r${frames[this.#frame++ % frames.length]} ${(this.elapsed / 1000).toFixed(1)} s\x1b[K`,
        );
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

/** A progress bar on a terminal (one line per update elsewhere) from progress notifications, on stderr. */
export class ProgressBar {
  readonly #tty: boolean;
  readonly #quiet: boolean;
  #drawn = false;
  constructor(options: { quiet?: boolean; tty?: boolean } = {}) {
    this.#tty = options.tty ?? Boolean(process.stderr.isTTY);
    this.#quiet = options.quiet ?? false;
  }
  /** Shows one update. */
  update(update: { progress: number; total?: number; message?: string }): void {
    if (this.#quiet) return;
    const { progress, total } = update;
    const message = update.message ? ` ${terminalText(update.message)}` : "";
    if (total !== undefined && total > 0) {
      const fraction = Math.max(0, Math.min(1, progress / total));
      const width = 24;
      const filled = Math.round(fraction * width);
      const line = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${
        (fraction * 100).toFixed(0).padStart(3)
      }%${message}`;
      this.#write(line);
    } else this.#write(`progress ${terminalText(progress)}${message}`);
  }
  /** Prints a line (a log message) without tearing the bar. */
  interrupt(text: string): void {
    this.clear();
    process.stderr.write(text);
  }
  /** Removes the bar. */
  clear(): void {
    if (this.#drawn) process.stderr.write("\r\x1b[K");
    this.#drawn = false;
  }
  #write(line: string): void {
    if (this.#tty) {
      process.stderr.write(`\r${line.slice(0, (process.stderr.columns || 80) - 1)}\x1b[K`);
      this.#drawn = true;
    } else process.stderr.write(`${line}\n`);
  }
}
