/**
 * Preloaded (`node --import`) into CLI children by the bench. Answers "sample" over IPC with
 * rss and cpuUsage, and at exit writes the kernel's peak RSS (getrusage maxrss, KiB) and the
 * total CPU time to BENCH_PROBE_FILE. It never wakes the child on its own.
 */
import { writeFileSync } from "node:fs";

const probeFile = process.env.BENCH_PROBE_FILE;
if (process.send !== undefined) {
  process.on("message", (message) => {
    if (message !== "sample") return;
    const { rss, heapTotal, heapUsed, external } = process.memoryUsage();
    process.send({ rss, heapTotal, heapUsed, external, cpu: process.cpuUsage(), maxRssKb: process.resourceUsage().maxRSS, at: Date.now() });
  });
  // The IPC channel must not keep a finished command alive.
  process.channel?.unref();
}
if (probeFile !== undefined) {
  process.on("exit", () => {
    writeFileSync(probeFile, JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS, cpu: process.cpuUsage() }));
  });
}
