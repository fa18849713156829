#!/usr/bin/env node
/**
 * The public surface of the package, as API Extractor reports it: one
 * `api/<entry>.api.md` per entry point of package.json `exports` (`.`,
 * `./ai-sdk`, `./gateway`, `./recovery`, `./testing`), read from the built declarations in
 * dist/ (run `npm run build` first). The reports are committed, so a change
 * to what users can import shows in review as a diff of these files.
 *
 *   node scripts/api-report.mjs          # rewrite the reports (`npm run api:report`, after an intended API change)
 *   node scripts/api-report.mjs --check  # fail when a report is out of date (CI: `npm run api:check`)
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');

/** Entry point (package.json `exports` key) → report name and declaration file. */
const ENTRIES = [
  { name: 'agent-incidents', dts: 'dist/index.d.ts' },
  // The AI SDK helper and recovery take and return the root's types (RunRecorder, Incident and the closed
  // values of the attribute contract): users import those from `agent-incidents`, so these subpaths do not
  // export them again. API Extractor reads one entry point at a time and cannot see that, so its
  // "forgotten export" finding is off for these two; the root's report has every other warning on.
  { name: 'agent-incidents-ai-sdk', dts: 'dist/ai-sdk/index.d.ts', typesFromRoot: true },
  { name: 'agent-incidents-gateway', dts: 'dist/gateway/index.d.ts' },
  { name: 'agent-incidents-recovery', dts: 'dist/recovery/index.d.ts', typesFromRoot: true },
  { name: 'agent-incidents-testing', dts: 'dist/testing/index.d.ts' },
];

const tempFolder = join(root, '.cache', 'api-extractor');
mkdirSync(tempFolder, { recursive: true });
mkdirSync(join(root, 'api'), { recursive: true });
let failed = false;
for (const entry of ENTRIES) {
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: join(root, entry.dts),
      compiler: { tsconfigFilePath: join(root, 'tsconfig.build.json') },
      apiReport: {
        enabled: true,
        reportFileName: entry.name,
        reportFolder: join(root, 'api'),
        reportTempFolder: tempFolder,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // API Extractor's findings (a type an entry point uses but does not export, an `@internal`
        // member left public, a broken {@link}) are written into the reports as `// Warning:` lines,
        // so they show in review as diffs of api/*.api.md and `--check` fails when one appears.
        extractorMessageReporting: {
          default: { logLevel: 'warning', addToApiReportFile: true },
          // Release tags (@public/@beta) are not used in this package: every export of an entry point is public.
          'ae-missing-release-tag': { logLevel: 'none' },
          // The reports already mark each member without JSDoc `// (undocumented)`, where it is.
          'ae-undocumented': { logLevel: 'none' },
          ...(entry.typesFromRoot ? { 'ae-forgotten-export': { logLevel: 'none' } } : {}),
        },
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        // The JSDoc of this package is not TSDoc (`@default` takes free text, `{}` included), so TSDoc's
        // syntax findings would be noise; broken links are still reported, as ae-unresolved-link.
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(root, 'package.json'),
  });
  const result = Extractor.invoke(config, { localBuild: !check, showVerboseMessages: false });
  if (check && result.apiReportChanged) {
    console.error(
      `api/${entry.name}.api.md is out of date: the public API of ${entry.dts} changed. Run \`npm run build && npm run api:report\` and commit the report.`,
    );
    failed = true;
  } else if (!result.succeeded) {
    console.error(
      `API Extractor failed on ${entry.dts}: ${result.errorCount} errors, ${result.warningCount} warnings (above)`,
    );
    failed = true;
  } else {
    console.log(`api/${entry.name}.api.md ${check ? 'is up to date' : 'written'}`);
  }
}
process.exit(failed ? 1 : 0);
