// Preloaded into a benchmarked `node` process (node --import): on exit, writes the process's peak
// resident set size and CPU seconds (all threads, so workers count) to the file named by
// BENCH_RSS_FILE, as `<max RSS bytes> <cpu seconds>`.
import { writeFileSync } from 'node:fs';

const target = process.env.BENCH_RSS_FILE;
if (target) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(target, `${usage.maxRSS * 1024} ${(usage.userCPUTime + usage.systemCPUTime) / 1e6}`);
  });
}
