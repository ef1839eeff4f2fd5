/**
 * `onemodelcontext serve --http PORT -- COMMAND`: a stdio MCP server over Streamable HTTP.
 * @module
 */
import type { CliArgs } from "./args.ts";
import { EXIT } from "./args.ts";

/** Not yet: prints why and exits with a usage error. */
export async function runGateway(_args: CliArgs): Promise<number> {
  process.stderr.write("The serve command is not available yet in this build\n");
  return EXIT.usage;
}
