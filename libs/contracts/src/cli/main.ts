// `pnpm contracts:generate | contracts:check | contracts:release`
// (docs/contracts.md). Exit 1 when the check finds a break, stale files or
// no release to compare with.
import { parseArgs } from 'node:util';
import type { Finding } from '../compat/rules.ts';
import { type CheckReport, checkContracts, generateSchemas, releaseContracts } from './files.ts';

const SCHEMAS_DIR = new URL('../../schemas/', import.meta.url).pathname;

const USAGE = `usage: node libs/contracts/src/cli/main.ts <command> [--openapi <file>]
  generate            rewrite libs/contracts/schemas/ from the catalog
  check   --openapi   compare the catalog and the OpenAPI document with the last release; exit 1 on a break
  release --openapi   record the current contracts as the release (refused while the check fails)`;

function line(f: Finding): string {
  const where = f.path ? `${f.subject} ${f.path}` : f.subject;
  return f.breaking
    ? `BREAKING ${where}: ${f.detail} (${f.kind}): ${f.why}`
    : `ok       ${where}: ${f.detail}`;
}

function print(report: CheckReport): void {
  for (const name of report.stale) console.log(`stale    ${name}: run pnpm contracts:generate`);
  if (report.unreleased)
    console.log('no release in libs/contracts/schemas/released/: run pnpm contracts:release');
  for (const finding of report.findings) console.log(line(finding));
  const breaks = report.findings.filter((f) => f.breaking).length;
  console.log(
    `contracts: ${breaks} breaking, ${report.findings.length - breaks} compatible changes, ${report.stale.length} stale files`,
  );
}

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { openapi: { type: 'string' } },
  });
  const command = positionals[0];
  if (command === 'generate') {
    await generateSchemas(SCHEMAS_DIR);
    console.log(`wrote ${SCHEMAS_DIR}`);
    return 0;
  }
  if ((command !== 'check' && command !== 'release') || !values.openapi) {
    console.error(USAGE);
    return 2;
  }
  const files = { schemasDir: SCHEMAS_DIR, openapiFile: values.openapi };
  const report = command === 'check' ? await checkContracts(files) : await releaseContracts(files);
  print(report);
  if (command === 'release' && report.ok) console.log(`released into ${SCHEMAS_DIR}released/`);
  return report.ok ? 0 : 1;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
