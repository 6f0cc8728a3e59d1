// Preloaded into a benchmarked `node` process (node --import): on exit, writes the process's peak
// resident set size (all threads, so workers count) to the file named by BENCH_RSS_FILE.
import { writeFileSync } from 'node:fs';

const target = process.env.BENCH_RSS_FILE;
if (target) {
  process.on('exit', () => writeFileSync(target, String(process.resourceUsage().maxRSS * 1024)));
}
