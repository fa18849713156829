// A/B of two builds of `agent-incidents report` on the same input: this tree's
// dist/ against another build's (a worktree of an earlier commit, built with
// `npm run build`), alternating rounds.
//
//   npm run build && node bench/report-ab.mjs /path/to/other/dist
//
// bench/report-stream.mjs builds its input with the demo of the tree it runs
// in, so two trees measured with their own copies read different inputs. Here
// one input (bench/report-input.mjs: this tree's demo fleet and the trace
// fixtures, repeated under fresh trace ids to REPORT_AB_MB) goes through both builds' `report --json`, each round in a
// child process, in the order other, this, this, other, … after one warm-up
// round each. Each child reports its own CPU time (user + system), which a
// busy neighbour disturbs less than wall time, its wall time and its peak RSS.
//
// Ends with `report_ab_cpu_ratio_this_over_other=<x.xx>` (median CPU time).
// Knobs: REPORT_AB_MB (input size, default 100), REPORT_AB_ROUNDS (measured
// rounds per build, default 4). The input is deleted afterwards.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { reportMaterial, writeRepeated } from './report-input.mjs';

const MB = Number(process.env.REPORT_AB_MB ?? 100);
const ROUNDS = Number(process.env.REPORT_AB_ROUNDS ?? 4);
const THIS = resolve(import.meta.dirname, '..', 'dist');
const [otherArg] = process.argv.slice(2);
if (!otherArg || !existsSync(join(resolve(otherArg), 'cli', 'program.js'))) {
  console.error('usage: node bench/report-ab.mjs /path/to/other/dist   (a build with cli/program.js)');
  process.exit(2);
}
const builds = { other: resolve(otherArg), this: THIS };

/** One `report --json` of `path` by the build in `dist`, in a child: its CPU and wall milliseconds and peak RSS. */
function reportOnce(dist, path) {
  const program = `
    import { main } from ${JSON.stringify(pathToFileURL(join(dist, 'cli', 'program.js')).href)};
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = () => true;
    const started = performance.now();
    const code = await main(['report', ${JSON.stringify(path)}, '--json']);
    const usage = process.resourceUsage();
    write(JSON.stringify({ code, wallMs: performance.now() - started,
      cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, rssKb: usage.maxRSS }));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8' });
  const result = JSON.parse(child.stdout);
  if (result.code !== 0) throw new Error(`report by ${dist} exited ${result.code}: ${child.stderr}`);
  return result;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const scratch = mkdtempSync(join(tmpdir(), 'report-ab-'));
try {
  const path = join(scratch, 'export.jsonl');
  await writeRepeated(path, MB, reportMaterial(join(THIS, 'cli.js'), scratch));
  console.log(`report --json on ${MB} MB of demo lines; other: ${builds.other}; this: ${builds.this}`);
  const results = { other: [], this: [] };
  for (let round = 0; round <= ROUNDS; round++) {
    for (const side of round % 2 === 0 ? ['other', 'this'] : ['this', 'other']) {
      const r = reportOnce(builds[side], path);
      const label = round === 0 ? `${side} (warm-up)` : `${side} round ${round}`;
      console.log(
        `${label.padEnd(18)}: cpu ${r.cpuMs.toFixed(0)} ms, wall ${r.wallMs.toFixed(0)} ms, peak RSS ${(r.rssKb / 1024).toFixed(0)} MB`,
      );
      if (round > 0) results[side].push(r);
    }
  }
  for (const side of ['other', 'this']) {
    const rs = results[side];
    console.log(
      `median ${side}: cpu ${median(rs.map((r) => r.cpuMs)).toFixed(0)} ms, wall ${median(rs.map((r) => r.wallMs)).toFixed(0)} ms, peak RSS ${(median(rs.map((r) => r.rssKb)) / 1024).toFixed(0)} MB`,
    );
  }
  const ratio = median(results.this.map((r) => r.cpuMs)) / median(results.other.map((r) => r.cpuMs));
  console.log(`report_ab_cpu_ratio_this_over_other=${ratio.toFixed(2)}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
