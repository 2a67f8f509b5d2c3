// What one part holds, measured on the 2-core development machine by the
// benches named beside each figure (docs/capacity.md has the table with the
// baselines of the same runs). The model reads one process of the bench as
// one vCPU's worth on Fargate where the bench shared its two cores with
// Postgres, Redis and the emulator (it did: the figures are per process, and
// a process is single-threaded but for libuv and sharp). Figures drift 2×
// within the hour on the shared machine (../shared/BASELINES.md): the model
// plans at TARGET_UTILISATION of them, and a figure is replaced when a new
// run of its bench says otherwise.

export interface Measurement {
  value: number;
  unit: string;
  /** The bench (or test) that measured it, and where its output is recorded. */
  source: string;
}

const m = (value: number, unit: string, source: string): Measurement => ({ value, unit, source });

export const measured = {
  relayEventsPerSecond: m(
    3_000,
    'events/s',
    'pnpm bench messaging, drain: backlog → relay → SNS → SQS → handler, one relay (docs/messaging.md: 2,732–3,135)',
  ),
  inboxMessagesPerSecondPerWorker: m(
    800,
    'messages/s',
    'pnpm bench messaging, end to end while producers commit, one consumer process (docs/messaging.md: 632–843)',
  ),
  emailsPerSecondPerWorker: m(
    190,
    'emails/s',
    'pnpm bench notifications, event → … → SMTP accept, one process (docs/notifications.md: 194–207)',
  ),
  /**
   * The two stages of a notification, each on its own: the inbox (claim,
   * upsert, log row, the BullMQ add) and the send (the task's claim, SMTP,
   * the sent row). One process does both; the end-to-end figure above is
   * 1 ÷ (1 ÷ intake + 1 ÷ send). The split is the CPU each stage took in a
   * burst where they ran apart (pnpm burst 2026-12-02 05:35, the workers'
   * CPU after their start): the inbox 7.8 CPU-ms an event while at most 47
   * emails went out (0–236 s), the sender 18.2 ms an email once the inbox
   * was empty (236–469 s): 30 % and 70 % of the 190/s figure's 5.26 ms.
   */
  notificationIntakesPerSecondPerWorker: m(
    630,
    'events/s',
    'pnpm bench notifications 190/s end to end ÷ the inbox share of the CPU in pnpm burst 2026-12-02 05:35 (7.8 of 26.0 CPU-ms; docs/capacity.md)',
  ),
  emailSendsPerSecondPerWorker: m(
    270,
    'emails/s',
    'pnpm bench notifications 190/s end to end ÷ the sender share of the CPU in pnpm burst 2026-12-02 05:35 (18.2 of 26.0 CPU-ms; docs/capacity.md)',
  ),
  apiRequestsPerSecondPerVcpu: m(
    450,
    'requests/s',
    'pnpm bench api, POST /v1/jobs (899 req/s on 2 cores shared with Postgres and the load generator, docs/performance.md)',
  ),
  imagesPerSecondPerVcpu: m(
    8,
    'images/s',
    'pnpm bench media, worker: S3 → 3 variants → S3 → ready (15.9 images/s on 2 cores, docs/media.md)',
  ),
  /** p50 of one posting searched against N candidates (384 dims, top 50), docs/matching.md. */
  searchMsAt: [
    [10_000, 0.93],
    [100_000, 19.7],
    [1_000_000, 233],
  ] as ReadonlyArray<readonly [candidates: number, ms: number]>,
  embedMs: m(
    0.35,
    'ms',
    'pnpm bench matching, a 3,110-character posting, p50 0.23–0.39 ms (docs/matching.md)',
  ),
  /** Store, outbox row and commit of one computation's results. */
  computationWriteMs: m(
    2,
    'ms',
    'estimate, not measured alone: a transactional handler commit with its outbox row',
  ),
  bytesPerVector: m(1_680, 'bytes', 'pnpm bench matching, 1M candidates: +1,677 MB RSS (docs/matching.md)'),
  /** An API process under work (was one figure for every process: 235 MiB idle, before issue 31). */
  apiProcessRssMiB: m(
    205,
    'MiB',
    'pnpm bench footprint, the traced jobs API after 10,000 POST /v1/jobs: 194–214 MB (docs/performance.md, Footprint)',
  ),
  /**
   * A worker process under work. Was 255 MiB (the jobs worker's saw-tooth top
   * after 10,000 events, before --heap-growing-percent=20). Re-read it after
   * the RSS work of 2026-12-02 (helper `rss`) merges.
   */
  workerProcessRssMiB: m(
    195,
    'MiB',
    'the largest worker RSS measured under work since --heap-growing-percent=20: 195–202 MB in the relay harness (docs/performance.md); pnpm burst 2026-12-02 05:35, every worker of the four services: 142–170 MiB first seen, 146–174 MiB at most',
  ),
  /**
   * One open status stream (SSE) in the jobs API process: its socket, the
   * reply, the feed's listener and channel (a posting each), the slot, the
   * keep-alive timer. The largest of two runs' averages; a bare node:http
   * server holding as many text/event-stream responses took 22–30 KB each
   * in the same runs (17.5 KB from 1,000 to 2,000 streams, the jobs API 30–44 KB).
   */
  bytesPerSseStream: m(
    42_000,
    'bytes',
    'pnpm bench capacity (sse), 2026-12-02, two runs: the jobs API +39–42 KB RSS a stream at 1,000 streams, +36–41 KB at 2,000 (a bare node:http SSE server 22–30 KB)',
  ),
  /** sharp's working set for one image in flight (decode + three encodes). */
  resizeWorkingSetMiB: m(
    150,
    'MiB',
    'estimate, not measured alone: a 4,000 × 3,000 decode (48 MB RGBA) and three encodes',
  ),
  postgresCommitsPerSecondPerVcpu: m(
    1_150,
    'commits/s',
    'pnpm bench messaging, commits alone (2,308 tx/s, Postgres on 2 cores, docs/performance.md)',
  ),
  /** Redis memory per waiting BullMQ job (its hash, the wait list entry, events stream share). */
  redisBytesPerWaitingJob: m(
    1_000,
    'bytes',
    'pnpm bench capacity, used_memory before/after 10,000 waiting email tasks (996–1,015; a bare string 141)',
  ),
} as const;

/** The share of a measured ceiling the model plans to use: room for peaks inside the minute, GC, drift. */
export const TARGET_UTILISATION = 0.6;

/** p50 search time of one posting against `candidates`, interpolated log-log between the measured points. */
export function searchMs(candidates: number): number {
  const points = measured.searchMsAt;
  if (candidates <= 0) return 0;
  const [first] = points;
  const last = points[points.length - 1]!;
  const clamp = (n: number) => Math.min(Math.max(n, first![0]), last[0]);
  const n = clamp(candidates);
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1]!;
    const [x1, y1] = points[i]!;
    if (n <= x1) {
      const t = (Math.log(n) - Math.log(x0)) / (Math.log(x1) - Math.log(x0));
      const ms = Math.exp(Math.log(y0) + t * (Math.log(y1) - Math.log(y0)));
      // Below the smallest point and above the largest, the scan is linear in the rows.
      return ms * (candidates / n);
    }
  }
  return last[1] * (candidates / last[0]);
}
