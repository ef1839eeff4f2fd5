// Echoes stdin to stdout byte for byte: the far end of the OS-pipe benchmark.
process.stdin.pipe(process.stdout);
