// Benchmark: throughput of each built-in value rule, in MB/s, on prose and on
// the adversarial input that is slowest for it (bench/adversarial-inputs.mjs),
// and of the whole scrubber on span-sized values.
//
//   npm run bench:sanitize      (builds dist/, then: node bench/sanitize.mjs)
//
// Each rule runs alone over each input (its trigger skipped, so it does its
// full work), best of 3. A linear rule keeps its MB/s on every input; a
// quadratic one drops by orders of magnitude as inputs grow (the JWT rule as
// a regular expression did). Knobs: BENCH_BYTES (input size, default
// 1048576), SANITIZE_DIST (the build to measure, default ../dist/, so an
// earlier build can be measured by the same script).
//
// The last line is `sanitize_worst_rule_mb_per_s=<x>`: the lowest MB/s of any
// rule on any input.

import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { adversarialInputs, plainText } from './adversarial-inputs.mjs';
import { bestMillis } from './timing.mjs';

const BYTES = Number(process.env.BENCH_BYTES ?? 1 << 20);
const dist = process.env.SANITIZE_DIST
  ? resolve(process.env.SANITIZE_DIST)
  : resolve(import.meta.dirname, '..', 'dist');
// Building blocks, not the package's API: read from their modules.
const { BUILT_IN_RULES } = await import(pathToFileURL(resolve(dist, 'sanitize', 'rules.js')).href);
const { createScrubber } = await import(pathToFileURL(resolve(dist, 'sanitize', 'scrubber.js')).href);

function applyRule(rule, text) {
  if ('replace' in rule) return rule.replace(text, () => '[x]');
  rule.pattern.lastIndex = 0;
  return text.replace(rule.pattern, '[x]');
}

const megabytes = BYTES / (1 << 20);
const prose = plainText(BYTES);
const inputs = adversarialInputs(BYTES);
console.log(
  `node ${process.version}; ${BUILT_IN_RULES.length} built-in rules; inputs of ${BYTES} characters (${inputs.length} adversarial + prose); build ${dist}`,
);
console.log('rule                                                  prose MB/s   worst MB/s   worst input');
let worstOverall = Number.POSITIVE_INFINITY;
for (const [index, rule] of BUILT_IN_RULES.entries()) {
  const proseRate = megabytes / (bestMillis(3, () => applyRule(rule, prose)) / 1000);
  let worst = { rate: Number.POSITIVE_INFINITY, name: '' };
  for (const [name, input] of inputs) {
    const rate = megabytes / (bestMillis(3, () => applyRule(rule, input)) / 1000);
    if (rate < worst.rate) worst = { rate, name };
  }
  worstOverall = Math.min(worstOverall, worst.rate, proseRate);
  const label = `${index + 1}. ${rule.kind} ${'pattern' in rule ? `/${rule.pattern.source.slice(0, 36)}…/` : '(scanner)'}`;
  console.log(
    `${label.padEnd(52)} ${proseRate.toFixed(0).padStart(10)}   ${worst.rate.toFixed(0).padStart(10)}   ${worst.name}`,
  );
}

// The scrubber as spans meet it: values cut to a window before the rules run.
const scrubber = createScrubber();
const values = [];
for (const [, input] of inputs) values.push(input.slice(0, 4096));
const scrubMillis = bestMillis(3, () => {
  for (const value of values) scrubber.scrub(`${value} `);
});
const scrubbedBytes = values.reduce((n, v) => n + v.length + 1, 0);
console.log(
  `scrubber on ${values.length} adversarial 4 KB values: ${(scrubbedBytes / (1 << 20) / (scrubMillis / 1000)).toFixed(0)} MB/s`,
);
console.log(`sanitize_worst_rule_mb_per_s=${worstOverall.toFixed(1)}`);
