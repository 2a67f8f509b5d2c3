import { LOG_WRITE_AROUND_MS, READ_SLACK_MS, SEND_WINDOW_MS } from './attribution.ts';
import type { CheckResult, SmallTenantResult } from './checker.ts';
import type { FaultKind } from './faults.ts';
import type { Sample } from './sampler.ts';

const FAULT_COLORS: Record<FaultKind, string> = {
  'kill-worker': '#d62728',
  'term-worker': '#ff7f0e',
  'pause-worker': '#9467bd',
  'smtp-outage': '#8c564b',
  'redis-restart': '#e377c2',
  'postgres-cut': '#7f7f7f',
  'postgres-long-cut': '#393b79',
  'emulator-cut': '#637939',
  'redis-wipe': '#843c39',
  'postgres-restart': '#17becf',
  'emulator-pause': '#bcbd22',
  'network-delay': '#aec7e8',
};

const escapeXml = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The run as a chart: throughput and queue depths over time, each fault a band (instant ones a line). */
export function timelineSvg(samples: Sample[], result: CheckResult, start: number): string {
  const width = 1000;
  const plotH = 150;
  const left = 60;
  const right = width - 20;
  const end = Math.max(start + 1000, samples[samples.length - 1]?.t ?? start + 1000);
  const x = (t: number) => left + ((t - start) / (end - start)) * (right - left);
  const panels: { title: string; series: { name: string; color: string; values: (number | null)[] }[] }[] =
    [];
  const rate = (key: 'ops' | 'emails') =>
    samples.map((s, i) => {
      const prev = samples[i - 1];
      if (!prev) return 0;
      return ((s[key] - prev[key]) * 1000) / Math.max(1, s.t - prev.t);
    });
  panels.push({
    title: 'throughput (per second)',
    series: [
      { name: 'operations sent', color: '#1f77b4', values: rate('ops') },
      { name: 'emails accepted', color: '#2ca02c', values: rate('emails') },
    ],
  });
  const palette = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd'];
  const depths = (title: string, of: (sample: Sample) => Record<string, number | null>) => {
    const names = Object.keys(samples[0] ? of(samples[0]) : {});
    panels.push({
      title,
      series: names.map((name, i) => ({
        name,
        color: palette[i % palette.length]!,
        values: samples.map((sample) => of(sample)[name] ?? null),
      })),
    });
  };
  depths('SQS inbox depth', (sample) => sample.inbox);
  depths('BullMQ jobs waiting/delayed/active', (sample) => sample.jobs);
  const faultRowH = 14;
  const kinds = Object.keys(FAULT_COLORS) as FaultKind[];
  const height = 30 + panels.length * (plotH + 40) + kinds.length * faultRowH + 40;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    '<title>Chaos run timeline: throughput, queue depths, faults as bands</title>',
    `<rect width="${width}" height="${height}" fill="white"/>`,
  ];
  let y = 20;
  for (const panel of panels) {
    const max = Math.max(1, ...panel.series.flatMap((s) => s.values.filter((v): v is number => v !== null)));
    out.push(
      `<text x="${left}" y="${y}" font-weight="bold">${escapeXml(panel.title)} (max ${Math.round(max)})</text>`,
    );
    const top = y + 8;
    for (const f of result.faults) {
      const x0 = x(f.start);
      const x1 = Math.max(x0 + 1.5, x(f.end));
      out.push(
        `<rect x="${x0.toFixed(1)}" y="${top}" width="${(x1 - x0).toFixed(1)}" height="${plotH}" fill="${FAULT_COLORS[f.kind]}" opacity="0.18"/>`,
      );
    }
    out.push(
      `<rect x="${left}" y="${top}" width="${right - left}" height="${plotH}" fill="none" stroke="#999"/>`,
    );
    for (const s of panel.series) {
      let d = '';
      let pen = false;
      samples.forEach((sample, i) => {
        const v = s.values[i];
        if (v === null || v === undefined) {
          pen = false;
          return;
        }
        const py = top + plotH - (v / max) * plotH;
        d += `${pen ? 'L' : 'M'}${x(sample.t).toFixed(1)},${py.toFixed(1)}`;
        pen = true;
      });
      out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.2"/>`);
    }
    panel.series.forEach((s, i) => {
      out.push(
        `<text x="${left + 8 + i * 150}" y="${top + 14}" fill="${s.color}">${escapeXml(s.name)}</text>`,
      );
    });
    y = top + plotH + 32;
  }
  out.push(`<text x="${left}" y="${y}" font-weight="bold">faults</text>`);
  y += 6;
  for (const kind of kinds) {
    out.push(`<text x="4" y="${y + 10}" font-size="9">${kind}</text>`);
    for (const f of result.faults.filter((r) => r.kind === kind)) {
      const x0 = x(f.start);
      const x1 = Math.max(x0 + 2, x(f.end));
      out.push(
        `<rect x="${x0.toFixed(1)}" y="${y + 2}" width="${(x1 - x0).toFixed(1)}" height="${faultRowH - 4}" fill="${FAULT_COLORS[kind]}"><title>${escapeXml(`${f.target}: ${f.detail}`)}</title></rect>`,
      );
    }
    y += faultRowH;
  }
  const seconds = Math.round((end - start) / 1000);
  for (let s = 0; s <= seconds; s += Math.max(10, Math.round(seconds / 10 / 10) * 10)) {
    out.push(`<text x="${x(start + s * 1000).toFixed(1)}" y="${y + 14}" text-anchor="middle">${s}s</text>`);
  }
  out.push('</svg>');
  return out.join('\n');
}

const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;

export function markdownReport(options: {
  title: string;
  command: string;
  seed: number;
  startedAt: number;
  durations: { workloadS: number; drainS: number; totalS: number };
  result: CheckResult;
  problems: string[];
  svgFile: string;
}): string {
  const { result } = options;
  const faultCounts = new Map<string, number>();
  for (const f of result.faults) faultCounts.set(f.kind, (faultCounts.get(f.kind) ?? 0) + 1);
  const deadByReason = new Map<string, number>();
  for (const d of result.deadLetters) {
    const key = `${d.where} | ${d.poison ? 'yes' : '**no**'} | ${d.reason.replace(/\|/g, '\\|')}`;
    deadByReason.set(key, (deadByReason.get(key) ?? 0) + 1);
  }
  const anomalyKinds = new Map<string, typeof result.anomalies>();
  for (const a of result.anomalies) {
    if (!anomalyKinds.has(a.kind)) anomalyKinds.set(a.kind, []);
    anomalyKinds.get(a.kind)!.push(a);
  }
  const lines = [
    `# ${options.title}`,
    '',
    `\`${options.command}\` (seed ${options.seed}), started ${new Date(options.startedAt).toISOString()}: workload ${options.durations.workloadS} s, drain ${options.durations.drainS} s, ${options.durations.totalS} s in all.`,
    '',
    options.problems.length === 0 ? '**Verdict: pass**' : `**Verdict: FAIL**: ${options.problems.join('; ')}`,
    '',
    `![timeline](${options.svgFile})`,
    '',
    '## Effects',
    '',
    row(['effect', 'expected', 'seen', 'lost', 'duplicated']),
    row(['---', '---:', '---:', '---:', '---:']),
    row([
      'postings (per intent)',
      result.postings.expected,
      result.postings.seen,
      result.postings.lost,
      result.postings.duplicated,
    ]),
    row([
      'matches',
      result.matches.expected,
      result.matches.seen,
      result.matches.lost,
      result.matches.duplicated,
    ]),
    row([
      'variants',
      result.variants.expected,
      result.variants.seen,
      result.variants.lost,
      result.variants.duplicated,
    ]),
    row(['emails', result.emails.expected, result.emails.seen, result.emails.lost, result.emails.duplicated]),
    '',
    `Emails not sent but still queued in notifications' log when the drain ended (backlog, not loss): ${result.emails.queued}.`,
    '',
    `Email copies: **${result.emails.sameIdCopies}** with the same Message-ID (the documented accept → log-write window; ${result.emails.sameIdUntied} of them with no fault in that window), **${result.emails.differentIdCopies}** with a different Message-ID (a bug, always); ${result.emails.unexpected} emails for no expected intent.`,
    '',
    `Accept → log write (the SMTP 250 to notifications' sent_at, ${result.emails.logWriteMs.count} emails sent once): p50 ${(result.emails.logWriteMs.p50 / 1000).toFixed(2)} s, p99 ${(result.emails.logWriteMs.p99 / 1000).toFixed(2)} s, max ${(result.emails.logWriteMs.max / 1000).toFixed(2)} s.`,
    '',
    `End-to-end latency (request → first email accepted, ${result.latencyMs.count} emails): p50 ${(result.latencyMs.p50 / 1000).toFixed(2)} s, p90 ${(result.latencyMs.p90 / 1000).toFixed(2)} s, p99 ${(result.latencyMs.p99 / 1000).toFixed(2)} s, max ${(result.latencyMs.max / 1000).toFixed(2)} s.`,
    '',
    ...(result.smallTenant ? [smallTenantLine(result.smallTenant), ''] : []),
    '## Operations',
    '',
    row(['kind', 'ok', 'failed (gave up at the deadline)']),
    row(['---', '---:', '---:']),
    ...Object.entries(result.operations.byKind).map(([k, v]) => row([k, v.ok, v.failed])),
    '',
    `Postings with text SQS cannot carry: ${result.operations.badText.refused} refused with 400, **${result.operations.badText.accepted} accepted** (a defect), ${result.operations.badText.gaveUp} with no answer before their deadline (not accepted).`,
    '',
    '## Faults injected',
    '',
    row(['fault', 'count']),
    row(['---', '---:']),
    ...[...faultCounts].map(([k, n]) => row([k, n])),
    row(['**total**', result.faults.length]),
    '',
    '## Dead letters',
    '',
    `Poison sent: ${result.poison.sent}; expected in ${result.poison.expectedPlacements} DLQ places, missing from ${result.poison.missingPlacements}. Dead letters that are not poison: **${result.unexpectedDeadLetters}**.`,
    '',
    row(['where', 'poison', 'reason', 'count']),
    row(['---', '---', '---', '---:']),
    ...[...deadByReason].map(([k, n]) => `| ${k} | ${n} |`),
    '',
    '## Anomalies, with the faults around each',
    '',
    `A same-Message-ID copy lists the faults inside its send window: those that stop a notifications worker, cut or slow its database, or drop SMTP connections, from when the sink read the first copy, less the sink's own event-loop lag and ${READ_SLACK_MS} ms, to when its sender would have written the log: ${SEND_WINDOW_MS / 1000} s after its accept, or the slowest accept → log write of the emails sent once within ±${LOG_WRITE_AROUND_MS / 1000} s of it when that is longer (its "window"). Anything else lists every fault from 30 s before to 2 s after it.`,
    '',
  ];
  if (anomalyKinds.size === 0) lines.push('None.');
  for (const [kind, list] of anomalyKinds) {
    lines.push(`### ${kind} (${list.length})`, '');
    for (const a of list.slice(0, 25)) {
      const when = a.at ? new Date(a.at).toISOString().slice(11, 23) : 'at the check:';
      lines.push(`- ${when} ${a.what}: ${a.faults.length ? a.faults.join(', ') : 'no fault tied to it'}`);
    }
    if (list.length > 25) lines.push(`- … and ${list.length - 25} more`);
    lines.push('');
  }
  lines.push('## Fault log', '');
  for (const f of result.faults) {
    lines.push(
      `- ${new Date(f.start).toISOString().slice(11, 19)} +${((f.end - f.start) / 1000).toFixed(1)} s ${f.kind} ${f.target}: ${f.detail}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The small tenant's line: its roles' latency beside the big tenant's flood, and its emails. */
export function smallTenantLine(small: SmallTenantResult): string {
  const s = (ms: number) => (ms / 1000).toFixed(2);
  return (
    `Small tenant (beside the big one): ${small.roles.posted}/${small.roles.planned} roles posted; ` +
    `role → its match emails accepted (${small.latencyMs.count} roles): p50 ${s(small.latencyMs.p50)} s, ` +
    `p99 ${s(small.latencyMs.p99)} s, max ${s(small.latencyMs.max)} s; emails ${small.emails.seen}/${small.emails.expected} ` +
    `(lost ${small.lost}, queued ${small.queued}, same-id copies ${small.sameIdCopies}, different-id copies ${small.differentIdCopies}).`
  );
}
