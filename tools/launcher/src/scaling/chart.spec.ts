import { describe, expect, it } from 'vitest';
import { scalingChart } from './chart.ts';

describe('scalingChart', () => {
  const points = [
    { t: 0, backlog: 0, oldestAgeSeconds: 0, workers: 1 },
    { t: 10, backlog: 2000, oldestAgeSeconds: 8, workers: 3 },
    { t: 20, backlog: 0, oldestAgeSeconds: 0, workers: 1 },
  ];

  it('draws one panel per service with backlog, age and a worker step line', () => {
    const svg = scalingChart(
      'A <burst>',
      { matching: points, notifications: points, media: [] },
      { matching: 6 },
    );
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('A &lt;burst&gt;');
    expect(svg.match(/class="workers"/g)).toHaveLength(2);
    expect(svg).not.toContain('>media<');
    // The step line holds each count until the next sample: 1 → 1 → 3 → 3 → 1.
    const steps = svg.match(/class="workers"[^>]*points="([^"]+)"/)![1]!.split(' ');
    expect(steps).toHaveLength(5);
    expect(steps[1]!.split(',')[1]).toBe(steps[0]!.split(',')[1]);
    expect(svg).toContain('>2000<');
    expect(svg).toContain('>6 w<');
  });
});
