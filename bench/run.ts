// `pnpm bench [name…]`: runs every bench/*.bench.ts (or the named ones) one
// after another and prints each one's figures. Each benchmark runs its
// baseline and the project's code side by side, interleaved, in this run, and
// reports the ratio: absolute figures on this machine drift 2x within an hour.
// At the end, one table of every figure that has a target (docs/performance.md).
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type BenchReport, type Check, printReport, printSummary } from './report.ts';

const dir = import.meta.dirname;
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const files = (await readdir(dir)).filter((f) => f.endsWith('.bench.ts')).sort();
const selected = files.filter((f) => wanted.length === 0 || wanted.includes(basename(f, '.bench.ts')));
if (selected.length === 0) {
  console.error(
    `no benchmark matches ${wanted.join(', ')}; have: ${files.map((f) => basename(f, '.bench.ts')).join(', ')}`,
  );
  process.exit(2);
}
const checks: { bench: string; check: Check }[] = [];
for (const file of selected) {
  const mod = (await import(join(dir, file))) as { default: () => Promise<BenchReport> };
  const report = await mod.default();
  const bench = basename(file, '.bench.ts');
  printReport(bench, report);
  for (const check of report.checks ?? []) checks.push({ bench, check });
}
printSummary(checks);
