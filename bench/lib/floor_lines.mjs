/**
 * The floor's line splitter: keeps the chunks of an unfinished line in a list and decodes once
 * when the newline arrives, so a large line costs one copy, not one per chunk.
 */
export function lineSplitter(onLine) {
  let parts = [];
  return (chunk) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      let line;
      if (parts.length === 0) {
        line = chunk.toString("utf8", start, nl);
      } else {
        parts.push(chunk.subarray(start, nl));
        line = Buffer.concat(parts).toString("utf8");
        parts = [];
      }
      start = nl + 1;
      if (line.length > 0) onLine(line);
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
  };
}
