// `pnpm status`'s view, as pure functions of what the processes' /metrics
// said: one row per queue (SQS inbox, BullMQ queue, outbox) and one per process.
import { type Sample, select } from '@hireflow/ops';
import type { RunningProcess } from '../prometheus/targets.ts';

export interface QueueRow {
  service: string;
  queue: string;
  kind: 'sqs' | 'bullmq' | 'outbox';
  depth: number;
  inFlight: number | undefined;
  delayed: number | undefined;
  /** Seconds; undefined where nothing outside CloudWatch knows it (SQS). */
  oldestAgeSeconds: number | undefined;
  deadLetters: number | undefined;
}

export interface ProcessRow {
  name: string;
  service: string;
  role: string;
  pid: number;
  rssBytes: number | undefined;
  /** Percent of one core between the two scrapes. */
  cpuPercent: number | undefined;
  admin: string;
}

/** One scrape of a process: undefined when it did not answer. */
export interface ProcessScrape {
  process: RunningProcess;
  first: Sample[] | undefined;
  second: Sample[] | undefined;
  /** Seconds between the two scrapes. */
  seconds: number;
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) => {
  const found = select(samples, name, labels);
  // The one sampling process exports the gauges; during a lease hand-over two may.
  return found.length === 0 ? undefined : Math.max(...found.map((s) => s.value));
};

/** Every queue whose gauges some process of its service exports. */
export function queueRows(scrapes: ProcessScrape[]): QueueRow[] {
  const rows: QueueRow[] = [];
  const services = [...new Set(scrapes.map((s) => s.process.service))];
  for (const service of services) {
    const samples = scrapes.filter((s) => s.process.service === service).flatMap((s) => s.second ?? []);
    const sqs = new Set(
      select(samples, 'hireflow_sqs_messages')
        .map((s) => s.labels.queue!)
        .filter((q) => !q.endsWith('-dlq')),
    );
    for (const queue of [...sqs].sort()) {
      rows.push({
        service,
        queue,
        kind: 'sqs',
        depth: value(samples, 'hireflow_sqs_messages', { queue, state: 'visible' }) ?? 0,
        inFlight: value(samples, 'hireflow_sqs_messages', { queue, state: 'inflight' }),
        delayed: value(samples, 'hireflow_sqs_messages', { queue, state: 'delayed' }),
        oldestAgeSeconds: undefined,
        deadLetters: value(samples, 'hireflow_dead_letters', { queue, kind: 'sqs' }),
      });
    }
    const bullmq = new Set(select(samples, 'hireflow_bullmq_jobs').map((s) => s.labels.queue!));
    for (const queue of [...bullmq].sort()) {
      rows.push({
        service,
        queue,
        kind: 'bullmq',
        depth: value(samples, 'hireflow_bullmq_jobs', { queue, state: 'waiting' }) ?? 0,
        inFlight: value(samples, 'hireflow_bullmq_jobs', { queue, state: 'active' }),
        delayed: value(samples, 'hireflow_bullmq_jobs', { queue, state: 'delayed' }),
        oldestAgeSeconds: value(samples, 'hireflow_bullmq_oldest_waiting_age_seconds', { queue }),
        deadLetters: value(samples, 'hireflow_dead_letters', { queue, kind: 'bullmq' }),
      });
    }
    const outbox = value(samples, 'hireflow_outbox_backlog');
    if (outbox !== undefined) {
      rows.push({
        service,
        queue: 'outbox',
        kind: 'outbox',
        depth: outbox,
        inFlight: undefined,
        delayed: undefined,
        oldestAgeSeconds: value(samples, 'hireflow_outbox_oldest_unsent_age_seconds'),
        deadLetters: undefined,
      });
    }
  }
  return rows;
}

export function processRows(scrapes: ProcessScrape[]): ProcessRow[] {
  return scrapes.map(({ process: p, first, second, seconds }) => {
    const cpu = (samples: Sample[] | undefined) => samples && value(samples, 'process_cpu_seconds_total');
    const [before, after] = [cpu(first), cpu(second)];
    return {
      name: p.name,
      service: p.service,
      role: p.role,
      pid: p.pid,
      rssBytes: second && value(second, 'process_resident_memory_bytes'),
      cpuPercent:
        before !== undefined && after !== undefined && seconds > 0
          ? Math.max(0, ((after - before) / seconds) * 100)
          : undefined,
      admin: p.admin,
    };
  });
}

const dash = '–';
const count = (n: number | undefined) => (n === undefined ? dash : String(n));
const age = (s: number | undefined) =>
  s === undefined
    ? dash
    : s < 120
      ? `${Math.round(s)}s`
      : s < 7200
        ? `${Math.round(s / 60)}m`
        : `${Math.round(s / 3600)}h`;

/** Columns padded to their widest cell; numbers right-aligned. */
export function formatTable(header: string[], rows: string[][], numeric: boolean[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

export function renderStatus(queues: QueueRow[], processes: ProcessRow[]): string[] {
  const queueLines = formatTable(
    ['SERVICE', 'QUEUE', 'KIND', 'DEPTH', 'IN FLIGHT', 'DELAYED', 'OLDEST', 'DLQ'],
    queues.map((q) => [
      q.service,
      q.queue,
      q.kind,
      count(q.depth),
      count(q.inFlight),
      count(q.delayed),
      age(q.oldestAgeSeconds),
      count(q.deadLetters),
    ]),
    [false, false, false, true, true, true, true, true],
  );
  const processLines = formatTable(
    ['PROCESS', 'SERVICE', 'ROLE', 'PID', 'RSS', 'CPU', 'ADMIN'],
    processes.map((p) => [
      p.name,
      p.service,
      p.role,
      String(p.pid),
      p.rssBytes === undefined ? 'not answering' : `${Math.round(p.rssBytes / 2 ** 20)} MB`,
      p.cpuPercent === undefined ? dash : `${p.cpuPercent.toFixed(1)}%`,
      p.admin,
    ]),
    [false, false, false, true, true, true, false],
  );
  return [...queueLines, '', ...processLines];
}
