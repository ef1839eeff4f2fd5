/**
 * Content blocks for a person: text wrapped to the terminal, images, audio and binary resources
 * written to files (the path is printed, not the base64), everything from the server made inert.
 * @module
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { terminalJson, terminalText } from "./terminal_text.ts";

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/svg+xml": "svg",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/mpeg": "mp3",
  "audio/ogg": "ogg",
  "audio/webm": "webm",
  "application/pdf": "pdf",
  "application/json": "json",
  "text/plain": "txt",
};

/** Writes binary content to files in one folder (created on first use). */
export class ContentFiles {
  readonly #dir: string | undefined;
  #made: string | undefined;
  #count = 0;
  constructor(dir?: string) {
    this.#dir = dir;
  }
  /** Writes base64 `data` and returns the path. */
  write(data: string, mimeType: unknown, kind: string): string {
    if (this.#made === undefined) {
      if (this.#dir) {
        mkdirSync(this.#dir, { recursive: true });
        this.#made = this.#dir;
      } else this.#made = mkdtempSync(join(tmpdir(), "onemodelcontext-"));
    }
    const ext = EXTENSIONS[String(mimeType)] ?? "bin";
    const path = join(this.#made, `${kind}-${++this.#count}.${ext}`);
    writeFileSync(path, Buffer.from(data, "base64"));
    return path;
  }
}

/** Wraps each line of `text` at `width` columns, breaking at spaces where it can. */
export function wrapText(text: string, width: number | undefined): string {
  if (!width || width < 20) return text;
  return text.split("\n").map((line) => {
    const out: string[] = [];
    let rest = line;
    while ([...rest].length > width) {
      const chars = [...rest];
      let cut = chars.slice(0, width + 1).lastIndexOf(" ");
      if (cut <= 0) cut = width;
      out.push(chars.slice(0, cut).join("").trimEnd());
      rest = chars.slice(cut).join("").replace(/^ /, "");
    }
    out.push(rest);
    return out.join("\n");
  }).join("\n");
}

function size(data: unknown): string {
  const n = typeof data === "string" ? Math.floor((data.length * 3) / 4) : 0;
  return n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} bytes`;
}

/** One content block (of a tool result, a prompt message or a resource) as lines for a person. */
export function describeContent(block: Record<string, unknown>, files: ContentFiles, width?: number): string {
  const text = (value: unknown): string => wrapText(terminalText(value, { multiline: true }), width);
  switch (block.type) {
    case "text":
      return text(block.text);
    case "image":
    case "audio": {
      if (typeof block.data !== "string") return `[${block.type}: no data]`;
      const path = files.write(block.data, block.mimeType, block.type);
      return `[${block.type} ${terminalText(block.mimeType ?? "")}, ${size(block.data)}] written to ${path}`;
    }
    case "resource":
      return describeResourceContents(block.resource as Record<string, unknown>, files, width);
    case "resource_link":
      return `[resource link] ${terminalText(block.uri)}${
        block.name ? ` (${terminalText(block.name)})` : ""
      }`;
    default:
      return terminalJson(block, 0);
  }
}

/** One item of `contents` (a read resource, an embedded resource). */
export function describeResourceContents(
  item: Record<string, unknown> | undefined,
  files: ContentFiles,
  width?: number,
): string {
  if (!item) return "[resource: empty]";
  const head = `[resource ${terminalText(item.uri)}${
    item.mimeType ? `, ${terminalText(item.mimeType)}` : ""
  }]`;
  if (typeof item.text === "string") {
    return `${head}\n${wrapText(terminalText(item.text, { multiline: true }), width)}`;
  }
  if (typeof item.blob === "string") {
    return `${head} ${size(item.blob)} written to ${files.write(item.blob, item.mimeType, "resource")}`;
  }
  return head;
}
