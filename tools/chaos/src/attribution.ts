// Which faults an anomaly is tied to (docs/chaos.md, "Reading a report").
import type { FaultKind, FaultRecord } from './faults.ts';

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);
const label = (f: FaultRecord) => `${f.kind} ${f.target} @${clock(f.start)}`;

/** Faults whose band overlaps [from - before, to + after]: what was going on around an anomaly. */
export function faultsAround(faults: FaultRecord[], from: number, to = from, before = 30_000, after = 2_000) {
  return faults.filter((f) => f.end >= from - before && f.start <= to + after).map(label);
}

/**
 * How long after the SMTP server's 250 a fault can still reopen the send
 * window, at least: the log write follows the accept at once, but retries for
 * up to a few seconds while its database is cut or restarting. Under load it
 * takes longer; sendWindowCloses measures how much longer.
 */
export const SEND_WINDOW_MS = 5_000;

/** One email sent once: when the SMTP sink accepted it and when notifications' log recorded the send (sent_at). */
export interface LogWrite {
  acceptedAt: number;
  loggedAt: number;
}

/** How far around a copy's accept the emails are whose log writes say how slow the senders were. */
export const LOG_WRITE_AROUND_MS = 30_000;

/**
 * When the send window closes: when the first copy's sender would have
 * written the log had it lived. The window lasts SEND_WINDOW_MS, or longer
 * when the emails accepted around the copy (±LOG_WRITE_AROUND_MS) took longer
 * from their 250 to their log write: the slowest of them. A sender stopped
 * before that moment may not have written it yet, so its email goes out again.
 * `writes` holds emails sent once only (a copy's own log write is the
 * re-sender's, late by the retry), sorted by acceptedAt.
 */
export function sendWindowCloses(
  acceptedAt: number,
  writes: readonly LogWrite[],
  around = LOG_WRITE_AROUND_MS,
): number {
  let slowest = SEND_WINDOW_MS;
  for (let i = firstAtOrAfter(writes, acceptedAt - around); i < writes.length; i++) {
    const w = writes[i]!;
    if (w.acceptedAt > acceptedAt + around) break;
    slowest = Math.max(slowest, w.loggedAt - w.acceptedAt);
  }
  return acceptedAt + slowest;
}

/** The index of the first write accepted at or after `at` (binary search over sorted writes). */
function firstAtOrAfter(writes: readonly LogWrite[], at: number): number {
  let lo = 0;
  let hi = writes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (writes[mid]!.acceptedAt < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How far a fault's band lies from a moment (0 while it is on). */
const distance = (f: FaultRecord, at: number) => (at < f.start ? f.start - at : at > f.end ? at - f.end : 0);

const WORKER_FAULTS = new Set<FaultKind>(['kill-worker', 'term-worker', 'pause-worker']);
const DATABASE_FAULTS = new Set<FaultKind>([
  'postgres-cut',
  'postgres-long-cut',
  'postgres-restart',
  'network-delay',
]);

/** What the SMTP sink recorded of a copy's accept (CaughtEmail). */
export interface Accept {
  acceptedAt: number;
  /** When the sink read the message's first bytes (0 or absent: unknown, the accept stands for it). */
  receivedAt?: number;
  /** The sink's worst event-loop delay over the second before it read them. */
  lagMs?: number;
}

/** How far before the sink read a message its sender may have finished writing it, beyond the sink's own lag. */
export const READ_SLACK_MS = 100;

/**
 * When the send window opens: when the sender may have written the message.
 * The sink reads the bytes, parses them and answers 250 in the chaos
 * process, which lags under load; a fault the same process injected (a
 * SIGKILL) runs in its turn while the message waits unread in the socket.
 * So the window opens the sink's lag (plus a slack) before it read the first
 * bytes, not at the 250.
 */
export function sendWindowOpens(accept: Accept): number {
  const read = accept.receivedAt ? Math.min(accept.receivedAt, accept.acceptedAt) : accept.acceptedAt;
  return read - (accept.lagMs ?? 0) - READ_SLACK_MS;
}

/**
 * The faults that can explain a same-Message-ID email copy: those that hit
 * what stands between the first copy's accept and the log write that records
 * it, while that window was open ([sendWindowOpens, accept + windowMs], where
 * windowMs is SEND_WINDOW_MS or what sendWindowCloses measured):
 * a notifications worker stopped (killed, terminated, paused past its lock),
 * notifications' database unreachable (cut, long cut, restart) or slow for
 * the log write, or the SMTP server dropping connections (a 250 the client
 * never read). Nearest first: the first named is the likeliest cause.
 */
export function faultsInSendWindow(
  faults: FaultRecord[],
  accept: Accept | number,
  windowMs = SEND_WINDOW_MS,
) {
  const first = typeof accept === 'number' ? { acceptedAt: accept } : accept;
  const opens = sendWindowOpens(first);
  return faults
    .filter(
      (f) =>
        (WORKER_FAULTS.has(f.kind) && f.target.startsWith('notifications')) ||
        (DATABASE_FAULTS.has(f.kind) && f.target === 'postgres') ||
        f.kind === 'smtp-outage',
    )
    .filter((f) => f.end >= opens && f.start <= first.acceptedAt + windowMs)
    .sort((a, b) => distance(a, first.acceptedAt) - distance(b, first.acceptedAt))
    .map(label);
}
