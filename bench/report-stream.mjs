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
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const MB = Number(process.env.REPORT_BENCH_MB ?? 1024);
const scratch = mkdtempSync(join(tmpdir(), 'report-bench-'));

/** Demo lines (one trace each) and the fixtures' lines, the material repeated. */
function material() {
  const demo = join(scratch, 'demo.jsonl');
  execFileSync(process.execPath, [CLI, 'demo', '--runs', '2000', '--seed', '5', '--out', demo], { stdio: 'ignore' });
  const lines = readFileSync(demo, 'utf8').trim().split('\n');
  const fixtures = join(ROOT, 'test', 'fixtures', 'traces');
  for (const folder of readdirSync(fixtures, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const name of readdirSync(join(fixtures, folder.name)).filter((f) => f.endsWith('.otlp.json'))) {
      lines.push(JSON.stringify(JSON.parse(readFileSync(join(fixtures, folder.name, name), 'utf8'))));
    }
  }
  return lines.map((line) => ({ line, traceId: /"traceId":"([0-9a-f]{32})"/.exec(line)[1] }));
}

/** Writes about `megabytes` MB of lines, each trace under a fresh id; returns lines written. */
async function generate(path, megabytes, lines) {
  const out = createWriteStream(path);
  const target = megabytes * 1024 * 1024;
  let written = 0;
  let count = 0;
  while (written < target) {
    const { line, traceId } = lines[count % lines.length];
    const fresh = `${line.replaceAll(traceId, `a${(count + 1).toString(16).padStart(31, '0')}`)}\n`;
    written += Buffer.byteLength(fresh);
    count += 1;
    if (!out.write(fresh)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return count;
}

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
  const lines = material();
  const results = [];
  for (const megabytes of [MB / 10, MB]) {
    const path = join(scratch, `export-${megabytes}.jsonl`);
    const generated = await generate(path, megabytes, lines);
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
