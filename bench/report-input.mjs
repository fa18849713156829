// The input of the report benches (report-stream.mjs, report-ab.mjs): a demo
// fleet's lines and the recorded trace fixtures' lines, repeated under fresh
// trace ids to a size.

import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/**
 * The material repeated: the lines of a 2,000-run demo fleet (seed 5) written by the CLI `cli` into
 * `scratch`, judged by the processor, and the recorded trace fixtures (exported without it, so `report`
 * folds them), each with its trace id.
 */
export function reportMaterial(cli, scratch) {
  const demo = join(scratch, 'demo.jsonl');
  execFileSync(process.execPath, [cli, 'demo', '--runs', '2000', '--seed', '5', '--out', demo], { stdio: 'ignore' });
  const lines = readFileSync(demo, 'utf8').trim().split('\n');
  const fixtures = join(ROOT, 'test', 'fixtures', 'traces');
  for (const folder of readdirSync(fixtures, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const name of readdirSync(join(fixtures, folder.name)).filter((f) => f.endsWith('.otlp.json'))) {
      lines.push(JSON.stringify(JSON.parse(readFileSync(join(fixtures, folder.name, name), 'utf8'))));
    }
  }
  return lines.map((line) => ({ line, traceId: /"traceId":"([0-9a-f]{32})"/.exec(line)[1] }));
}

/** Writes about `megabytes` MB of `lines` to `path`, each trace under a fresh id; returns the lines written. */
export async function writeRepeated(path, megabytes, lines) {
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
