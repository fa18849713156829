// `npm run lint:package`: lints the package as npm would publish it, after `npm run build`.
//
// Packs the tarball once (without lifecycle scripts: `prepare` would rebuild dist/, which the
// caller has just built) and runs both linters on that tarball, so they judge the same bytes:
// - publint (--strict: warnings fail too): package.json fields against the files really packed.
// - `npm pkg fix` on the unpacked package.json: whatever it would change, `npm publish` changes too
//   ("npm auto-corrected some errors"), and npm 11 reports a `./`-prefixed bin as "invalid and
//   removed"; publint does not see that, so any change npm would make fails here.
// - @arethetypeswrong/cli with `--profile esm-only`: agent-incidents is ESM-only by design
//   ("type": "module", every export condition is `import`), so a CommonJS `require` of it
//   (node16-cjs) and the pre-`exports` node10 resolution can never be supported and are not
//   judged; what is judged is every entry point's types and JavaScript under node16 from ESM and
//   under bundler resolution. The default (strict) profile fails on those two by construction.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
if (!existsSync(join(root, 'dist', 'index.js'))) {
  console.error('lint:package: dist/ is missing; run `npm run build` first');
  process.exit(1);
}

const bin = (name) => join(root, 'node_modules', '.bin', name);
const out = mkdtempSync(join(tmpdir(), 'agent-incidents-pack-'));
try {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], {
      cwd: root,
      encoding: 'utf8',
    }),
  );
  const tarball = join(out, packed.filename);
  console.log(
    `packed ${packed.filename}: ${packed.entryCount} files, ${packed.size} bytes (${packed.unpackedSize} unpacked)`,
  );
  execFileSync(bin('publint'), ['run', '--strict', tarball], { stdio: 'inherit' });
  execFileSync(bin('attw'), ['--profile', 'esm-only', tarball], { stdio: 'inherit' });

  execFileSync('tar', ['-xzf', tarball, '-C', out]);
  const manifest = join(out, 'package', 'package.json');
  const before = readFileSync(manifest, 'utf8');
  execFileSync('npm', ['pkg', 'fix'], { cwd: join(out, 'package') });
  if (readFileSync(manifest, 'utf8') !== before) {
    console.error(
      'npm pkg fix changes package.json, so npm publish would auto-correct it; run `npm pkg fix` and review the diff',
    );
    process.exitCode = 1;
  } else {
    console.log('npm pkg fix: nothing npm would correct at publish');
  }
} catch (error) {
  // A linter that exits non-zero has printed what it found; anything else is printed here.
  if (typeof error?.status !== 'number') console.error(error);
  process.exitCode = typeof error?.status === 'number' ? error.status : 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
