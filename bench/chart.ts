// An SVG chart of a load curve: achieved throughput and p99 latency against
// offered load, for the project's path and its baseline. Plain SVG text, no
// dependency (as tools/launcher/src/scaling/chart.ts): committed to docs/ and read on GitHub.

export interface LoadPoint {
  /** Requests per second offered (autocannon overallRate). */
  offered: number;
  /** Requests per second answered 2xx. */
  achieved: number;
  p99: number;
}

const WIDTH = 860;
const PANEL = 260;
const MARGIN = { left: 70, right: 30, top: 34, bottom: 40 };
const COLORS = ['#2563eb', '#9ca3af', '#d97706', '#059669'];

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A round upper bound for an axis (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10^n). */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  return ([1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((step) => step * magnitude >= value) ?? 10) * magnitude;
}

function panel(
  title: string,
  series: Record<string, LoadPoint[]>,
  value: (p: LoadPoint) => number,
  unit: string,
  top: number,
  xMax: number,
  diagonal: boolean,
): string {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = PANEL - MARGIN.top - MARGIN.bottom;
  const all = Object.values(series).flat();
  const yMax = niceMax(Math.max(...all.map(value), diagonal ? 0 : 1));
  const x = (v: number) => MARGIN.left + (v / xMax) * plotWidth;
  const y = (v: number) => top + MARGIN.top + plotHeight - (Math.min(v, yMax) / yMax) * plotHeight;
  const bottom = top + MARGIN.top + plotHeight;
  const xTicks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const tx = x(f * xMax);
    return `<line x1="${tx}" y1="${bottom}" x2="${tx}" y2="${bottom + 4}" stroke="#555"/><text x="${tx}" y="${bottom + 16}" text-anchor="middle">${Math.round(f * xMax)}</text>`;
  });
  const yTicks = [0, 0.5, 1].map(
    (f) =>
      `<text x="${MARGIN.left - 6}" y="${y(f * yMax) + 4}" text-anchor="end">${Math.round(f * yMax)}</text><line x1="${MARGIN.left}" y1="${y(f * yMax)}" x2="${WIDTH - MARGIN.right}" y2="${y(f * yMax)}" stroke="#eee"/>`,
  );
  const lines = Object.entries(series).map(([name, points], i) => {
    const color = COLORS[i % COLORS.length];
    const coords = points.map((p) => `${x(p.offered).toFixed(1)},${y(value(p)).toFixed(1)}`).join(' ');
    const dots = points
      .map(
        (p) =>
          `<circle cx="${x(p.offered).toFixed(1)}" cy="${y(value(p)).toFixed(1)}" r="3" fill="${color}"/>`,
      )
      .join('');
    return `<polyline class="${escapeXml(name)}" fill="none" stroke="${color}" stroke-width="2" points="${coords}"/>${dots}`;
  });
  return [
    `<text x="${MARGIN.left}" y="${top + 20}" font-weight="bold">${escapeXml(title)} (${unit})</text>`,
    `<rect x="${MARGIN.left}" y="${top + MARGIN.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#ccc"/>`,
    ...yTicks,
    ...xTicks,
    `<text x="${MARGIN.left + plotWidth / 2}" y="${bottom + 32}" text-anchor="middle">offered load (requests/s)</text>`,
    diagonal
      ? `<line x1="${x(0)}" y1="${y(0)}" x2="${x(Math.min(xMax, yMax))}" y2="${y(Math.min(xMax, yMax))}" stroke="#bbb" stroke-dasharray="4 4"/>`
      : '',
    ...lines,
  ].join('\n');
}

/** Throughput (top) and p99 (bottom) against offered load, one line per series. */
export function loadChart(title: string, series: Record<string, LoadPoint[]>): string {
  const xMax = niceMax(Math.max(...Object.values(series).flatMap((ps) => ps.map((p) => p.offered))));
  const height = 60 + 2 * PANEL;
  const legend = Object.keys(series)
    .map(
      (name, i) =>
        `<text x="${MARGIN.left + i * 330}" y="48" fill="${COLORS[i % COLORS.length]}">■ ${escapeXml(name)}</text>`,
    )
    .join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(title)}</title>`,
    '<rect width="100%" height="100%" fill="#fff"/>',
    `<text x="${MARGIN.left}" y="22" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    legend,
    panel('throughput answered', series, (p) => p.achieved, 'requests/s', 50, xMax, true),
    panel('p99 latency', series, (p) => p.p99, 'ms', 50 + PANEL, xMax, false),
    '</svg>',
  ].join('\n');
}
