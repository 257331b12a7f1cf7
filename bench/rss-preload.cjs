// Loaded with --require into the CLI under benchmark: reports the peak resident set at exit.
process.on('exit', () => {
  process.stderr.write(`SEAT_MAX_RSS_KB=${process.resourceUsage().maxRSS}\n`);
});
