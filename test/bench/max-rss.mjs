import { writeFileSync } from 'node:fs';

// Loaded with `node --import` into the measured process: its own peak RSS, not the parent's.
// maxRSS is the kernel's high-water mark in KiB, so nothing between two samples is missed.
const target = process.env.PROPDATA_BENCH_RSS_FILE;
if (target) process.on('exit', () => writeFileSync(target, String(process.resourceUsage().maxRSS * 1024)));
