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
 * window: the log write follows the accept at once, but retries for up to a
 * few seconds while its database is cut or restarting.
 */
export const SEND_WINDOW_MS = 5_000;

/** How far a fault's band lies from a moment (0 while it is on). */
const distance = (f: FaultRecord, at: number) => (at < f.start ? f.start - at : at > f.end ? at - f.end : 0);

const WORKER_FAULTS = new Set<FaultKind>(['kill-worker', 'term-worker', 'pause-worker']);
const DATABASE_FAULTS = new Set<FaultKind>([
  'postgres-cut',
  'postgres-long-cut',
  'postgres-restart',
  'network-delay',
]);

/**
 * The faults that can explain a same-Message-ID email copy: those that hit
 * what stands between the first copy's accept and the log write that records
 * it, while that window was open ([accept − 100 ms, accept + SEND_WINDOW_MS]):
 * a notifications worker stopped (killed, terminated, paused past its lock),
 * notifications' database unreachable (cut, long cut, restart) or slow for
 * the log write, or the SMTP
 * server dropping connections (a 250 the client never read). Nearest first:
 * the first named is the likeliest cause.
 */
export function faultsInSendWindow(faults: FaultRecord[], acceptedAt: number, windowMs = SEND_WINDOW_MS) {
  return faults
    .filter(
      (f) =>
        (WORKER_FAULTS.has(f.kind) && f.target.startsWith('notifications')) ||
        (DATABASE_FAULTS.has(f.kind) && f.target === 'postgres') ||
        f.kind === 'smtp-outage',
    )
    .filter((f) => f.end >= acceptedAt - 100 && f.start <= acceptedAt + windowMs)
    .sort((a, b) => distance(a, acceptedAt) - distance(b, acceptedAt))
    .map(label);
}
