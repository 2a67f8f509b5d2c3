// An SVG chart of an autoscaler run: per service, the backlog and the age of
// the oldest waiting work against time, with the worker count as a step line.
// Plain SVG text, no dependency: it is committed to docs/ and read on GitHub.

export interface ChartPoint {
  /** Seconds since the run began. */
  t: number;
  backlog: number;
  oldestAgeSeconds: number;
  workers: number;
}

const WIDTH = 860;
const PANEL = 190;
const MARGIN = { left: 64, right: 56, top: 34, bottom: 30 };
const COLORS = { backlog: '#2563eb', age: '#d97706', workers: '#059669' };

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** A round upper bound for an axis (1, 2 or 5 × 10^n). */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((step) => step * magnitude >= value) ?? 10) * magnitude;
}

function panel(
  service: string,
  points: ChartPoint[],
  top: number,
  duration: number,
  maxWorkers: number,
): string {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = PANEL - MARGIN.top - MARGIN.bottom;
  const x = (t: number) => MARGIN.left + (t / duration) * plotWidth;
  const backlogMax = niceMax(Math.max(...points.map((p) => p.backlog)));
  const ageMax = niceMax(Math.max(...points.map((p) => p.oldestAgeSeconds)));
  const yOf = (value: number, max: number) => top + MARGIN.top + plotHeight - (value / max) * plotHeight;
  const line = (values: [number, number][]) =>
    values.map(([t, y]) => `${x(t).toFixed(1)},${y.toFixed(1)}`).join(' ');
  const steps: [number, number][] = [];
  for (const [i, p] of points.entries()) {
    if (i > 0) steps.push([p.t, yOf(points[i - 1]!.workers, maxWorkers)]);
    steps.push([p.t, yOf(p.workers, maxWorkers)]);
  }
  const bottom = top + MARGIN.top + plotHeight;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const tx = x(f * duration);
    return `<line x1="${tx}" y1="${bottom}" x2="${tx}" y2="${bottom + 4}" stroke="#555"/><text x="${tx}" y="${bottom + 16}" text-anchor="middle">${Math.round(f * duration)} s</text>`;
  });
  return [
    `<text x="${MARGIN.left}" y="${top + 20}" font-weight="bold">${escapeXml(service)}</text>`,
    `<rect x="${MARGIN.left}" y="${top + MARGIN.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#ccc"/>`,
    `<text x="${MARGIN.left - 6}" y="${top + MARGIN.top + 4}" text-anchor="end" fill="${COLORS.backlog}">${backlogMax}</text>`,
    `<text x="${MARGIN.left - 6}" y="${bottom}" text-anchor="end" fill="${COLORS.backlog}">0</text>`,
    `<text x="${WIDTH - MARGIN.right + 6}" y="${top + MARGIN.top + 4}" fill="${COLORS.workers}">${maxWorkers} w</text>`,
    `<text x="${WIDTH - MARGIN.right + 6}" y="${bottom}" fill="${COLORS.workers}">0 w</text>`,
    `<text x="${WIDTH - MARGIN.right + 6}" y="${top + MARGIN.top + 18}" fill="${COLORS.age}">${ageMax} s</text>`,
    ...ticks,
    `<polyline class="backlog" fill="none" stroke="${COLORS.backlog}" stroke-width="2" points="${line(points.map((p) => [p.t, yOf(p.backlog, backlogMax)]))}"/>`,
    `<polyline class="age" fill="none" stroke="${COLORS.age}" stroke-width="1.5" stroke-dasharray="5 3" points="${line(points.map((p) => [p.t, yOf(p.oldestAgeSeconds, ageMax)]))}"/>`,
    `<polyline class="workers" fill="none" stroke="${COLORS.workers}" stroke-width="2.5" points="${line(steps)}"/>`,
  ].join('\n');
}

/** The chart of a run: one panel per service, sharing the time axis. */
export function scalingChart(
  title: string,
  series: Record<string, ChartPoint[]>,
  maxWorkers: Record<string, number>,
): string {
  const services = Object.keys(series).filter((s) => (series[s]?.length ?? 0) > 0);
  const duration = Math.max(1, ...services.flatMap((s) => series[s]!.map((p) => p.t)));
  const height = 60 + services.length * PANEL;
  const legend = [
    ['backlog (waiting messages + jobs)', COLORS.backlog],
    ['oldest waiting (s)', COLORS.age],
    ['workers', COLORS.workers],
  ]
    .map(([label, color], i) => `<text x="${MARGIN.left + i * 250}" y="48" fill="${color}">■ ${label}</text>`)
    .join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${MARGIN.left}" y="22" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    legend,
    ...services.map((s, i) => panel(s, series[s]!, 50 + i * PANEL, duration, maxWorkers[s] ?? 1)),
    '</svg>',
    '',
  ].join('\n');
}
