import { percentile } from '@hireflow/testing';

export interface BenchReport {
  /** What was compared, in a sentence. */
  description: string;
  /** Rows of figures: one per measured variant (baseline first). */
  rows: Record<string, string | number>[];
  /** The headline ratios (project ÷ baseline), named. */
  ratios: Record<string, number>;
  /** The figures that have a target (docs/performance.md): summed up at the end of `pnpm bench`. */
  checks?: Check[];
}

/** One figure with a target: the median of its repeats is compared with the target. */
export interface Check {
  /** What is measured, as the summary table names it. */
  row: string;
  /** One value per repeat (round) of this run. */
  values: number[];
  /** `min`: the median must be at least `target`; `max`: at most. */
  kind: 'min' | 'max';
  target: number;
  /** `ratio` (project ÷ baseline) or `ms`. */
  unit: 'ratio' | 'ms';
  /** Printed beside the figure: the baseline's own figure in the same run. */
  beside?: string;
}

export function printReport(name: string, report: BenchReport): void {
  console.log(`\n## ${name}\n${report.description}\n`);
  console.table(report.rows);
  for (const [label, value] of Object.entries(report.ratios)) {
    console.log(`ratio ${label}: ${value.toFixed(3)}`);
  }
}

/** Per-round percentiles of a pipeline's latency and of the emulator's own send → receive latency. */
export interface LatencyRound {
  p50: number;
  p99: number;
  sqsP50: number;
  sqsP99: number;
}

/** The p50 and p99 checks of a latency row ("no worse" than `targets`), the emulator's own beside each. */
export function latencyChecks(
  row: string,
  rounds: LatencyRound[],
  targets: { p50: number; p99: number },
): Check[] {
  return (['p50', 'p99'] as const).map((p) => {
    const emulator = median(rounds.map((r) => (p === 'p50' ? r.sqsP50 : r.sqsP99)));
    return {
      row: `${row}, ${p}`,
      values: rounds.map((r) => r[p]),
      kind: 'max',
      target: targets[p],
      unit: 'ms',
      beside: `emulator send → receive ${round(emulator, 1)} ms`,
    };
  });
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Whether a check's median meets its target. */
export function passes(check: Check): boolean {
  const m = median(check.values);
  return check.kind === 'min' ? m >= check.target : m <= check.target;
}

/** The table of every check of the run: median over repeats, target, pass or fail. */
export function printSummary(checks: { bench: string; check: Check }[]): boolean {
  if (checks.length === 0) return true;
  const format = (n: number, unit: Check['unit']) => (unit === 'ratio' ? n.toFixed(2) : `${n.toFixed(1)} ms`);
  console.log('\n## summary (median over the repeats of this run)\n');
  console.table(
    checks.map(({ bench, check }) => ({
      bench,
      row: check.row,
      median: format(median(check.values), check.unit),
      repeats: check.values.map((v) => format(v, check.unit)).join(' / '),
      target: `${check.kind === 'min' ? '≥' : '≤'} ${format(check.target, check.unit)}`,
      result: passes(check) ? 'pass' : 'FAIL',
      beside: check.beside ?? '',
    })),
  );
  const failed = checks.filter(({ check }) => !passes(check)).length;
  console.log(
    failed === 0 ? 'every row at or above target' : `${failed} of ${checks.length} rows below target`,
  );
  return failed === 0;
}

// One nearest-rank percentile for benchmarks and tests alike, kept with the test
// helpers: a service's test cannot import bench, which imports the services.
export { percentile };

export const round = (n: number, digits = 2): number => Number(n.toFixed(digits));
