// `report` on a large export: peak RSS must stay flat as the input grows.
//
// Generates an OTLP/JSON lines export by repeating the lines of a demo fleet
// (judged by the processor) and of the recorded trace fixtures (exported
// without it, so `report` folds them) under fresh trace ids, streamed to a
// scratch file, at two sizes (REPORT_BENCH_MB, default 1024, and a tenth of
// it); runs the built CLI's `report --json` on each in a child process and
// prints peak RSS, throughput and the RSS ratio. The files are deleted after.
//
//   npm run bench:report                 # 1 GB and 100 MB
//   REPORT_BENCH_MB=200 npm run bench:report
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { reportMaterial, writeRepeated } from './report-input.mjs';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const MB = Number(process.env.REPORT_BENCH_MB ?? 1024);
const scratch = mkdtempSync(join(tmpdir(), 'report-bench-'));

/** Runs `report --json` on `path` in a child; its peak RSS comes from the child's own resource usage. */
async function report(path) {
  const program = `
    import { main } from ${JSON.stringify(join(ROOT, 'dist', 'cli', 'program.js'))};
    const write = process.stdout.write.bind(process.stdout);
    let out = '';
    process.stdout.write = (chunk) => { out += chunk; return true; };
    const started = performance.now();
    const code = await main(['report', ${JSON.stringify(path)}, '--json']);
    const millis = performance.now() - started;
    process.stdout.write = write;
    const r = JSON.parse(out);
    write(JSON.stringify({ code, millis, maxRssKb: process.resourceUsage().maxRSS, runs: r.runs, folded: r.folded, lines: r.input.lines }));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', program], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let text = '';
  child.stdout.on('data', (c) => (text += c));
  await once(child, 'close');
  return JSON.parse(text);
}

try {
  const lines = reportMaterial(CLI, scratch);
  const results = [];
  for (const megabytes of [MB / 10, MB]) {
    const path = join(scratch, `export-${megabytes}.jsonl`);
    const generated = await writeRepeated(path, megabytes, lines);
    const bytes = statSync(path).size;
    const r = await report(path);
    rmSync(path);
    if (r.code !== 0 || r.lines !== generated) throw new Error(`report failed on ${path}: ${JSON.stringify(r)}`);
    const seconds = r.millis / 1000;
    results.push({ bytes, rss: r.maxRssKb });
    console.log(
      `${(bytes / 2 ** 20).toFixed(0).padStart(5)} MB  ${r.lines.toLocaleString('en-US').padStart(9)} lines  ${r.runs.toLocaleString('en-US').padStart(9)} runs (${r.folded.toLocaleString('en-US')} folded)  ` +
        `peak RSS ${(r.maxRssKb / 1024).toFixed(0)} MB  ${seconds.toFixed(1)} s  ${(bytes / 2 ** 20 / seconds).toFixed(1)} MB/s  ${Math.round(r.lines / seconds).toLocaleString('en-US')} lines/s`,
    );
  }
  const [small, large] = results;
  console.log(
    `input ×${(large.bytes / small.bytes).toFixed(1)}: peak RSS ×${(large.rss / small.rss).toFixed(2)} (flat is ×1)`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
