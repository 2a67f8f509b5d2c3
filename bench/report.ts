export interface BenchReport {
  /** What was compared, in a sentence. */
  description: string;
  /** Rows of figures: one per measured variant (baseline first). */
  rows: Record<string, string | number>[];
  /** The headline ratios (project ÷ baseline), named. */
  ratios: Record<string, number>;
}

export function printReport(name: string, report: BenchReport): void {
  console.log(`\n## ${name}\n${report.description}\n`);
  console.table(report.rows);
  for (const [label, value] of Object.entries(report.ratios)) {
    console.log(`ratio ${label}: ${value.toFixed(3)}`);
  }
}

/** Percentile (0..100) of a list of numbers, nearest-rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const round = (n: number, digits = 2): number => Number(n.toFixed(digits));
