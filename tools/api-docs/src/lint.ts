// The API documents' lint: Redocly's recommended rules on the public OpenAPI
// document, and the AsyncAPI parser on the event catalog. Offline: Redocly's
// telemetry and update check are off, its ruleset is the built-in one.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { Parser } from '@asyncapi/parser';

const ROOT = resolve(import.meta.dirname, '../../..');
export const REDOCLY_CONFIG = join(ROOT, 'redocly.yaml');
export const ASYNCAPI_DOCUMENT = join(ROOT, 'libs/contracts/schemas/asyncapi.json');

export interface LintProblem {
  severity: 'error' | 'warning';
  rule: string;
  message: string;
  where: string;
}

export interface LintResult {
  errors: number;
  warnings: number;
  problems: LintProblem[];
}

const redoclyCli = join(
  dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')),
  'bin/cli.js',
);

interface RedoclyReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

/** `redocly lint` with the recommended rules (redocly.yaml) on an OpenAPI document. */
export async function lintOpenApi(file: string): Promise<LintResult> {
  const child = spawn(
    process.execPath,
    [redoclyCli, 'lint', file, '--config', REDOCLY_CONFIG, '--format', 'json'],
    {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await new Promise<number | null>((done) => child.once('close', done));
  const text = Buffer.concat(out).toString('utf8');
  let report: RedoclyReport;
  try {
    report = JSON.parse(text.slice(text.indexOf('{')));
  } catch {
    throw new Error(`redocly lint failed (exit ${code}): ${Buffer.concat(err).toString('utf8')}${text}`);
  }
  return {
    errors: report.totals.errors,
    warnings: report.totals.warnings,
    problems: report.problems.map((p) => ({
      severity: p.severity === 'error' ? 'error' : 'warning',
      rule: p.ruleId,
      message: p.message,
      where: p.location[0]?.pointer ?? '',
    })),
  };
}

// @asyncapi/parser's severities: 0 error, 1 warning, 2 information, 3 hint.
const ASYNCAPI_SEVERITY: Record<number, LintProblem['severity'] | undefined> = { 0: 'error', 1: 'warning' };

/** The AsyncAPI parser's diagnostics on a document (errors and warnings; information and hints left out). */
export async function parseAsyncApi(file: string): Promise<LintResult> {
  const { document, diagnostics } = await new Parser().parse(await readFile(file, 'utf8'));
  const problems = diagnostics.flatMap((d): LintProblem[] => {
    const severity = ASYNCAPI_SEVERITY[d.severity];
    return severity ? [{ severity, rule: String(d.code), message: d.message, where: d.path.join('.') }] : [];
  });
  if (!document && !problems.some((p) => p.severity === 'error')) {
    problems.push({
      severity: 'error',
      rule: 'parse',
      message: 'the document could not be parsed',
      where: '',
    });
  }
  return {
    errors: problems.filter((p) => p.severity === 'error').length,
    warnings: problems.filter((p) => p.severity === 'warning').length,
    problems,
  };
}
