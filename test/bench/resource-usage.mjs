import { writeFileSync } from 'node:fs';

// Loaded with `node --import` into the measured process: its own peak RSS and CPU time, not the
// parent's. maxRSS is the kernel's high-water mark, so nothing between two samples is missed.
const target = process.env.PROPDATA_BENCH_USAGE_FILE;
if (target) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(target, JSON.stringify({ maxRss: usage.maxRSS * 1024, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 }));
  });
}
