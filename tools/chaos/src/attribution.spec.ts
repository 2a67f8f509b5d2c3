import { describe, expect, it } from 'vitest';
import { faultsAround, faultsInSendWindow, sendWindowCloses, sendWindowOpens } from './attribution.ts';
import type { FaultRecord } from './faults.ts';

const at = (s: number) => Date.UTC(2026, 10, 30, 12, 0, 0) + s * 1000;
const fault = (kind: FaultRecord['kind'], target: string, start: number, end = start): FaultRecord => ({
  kind,
  target,
  start: at(start),
  end: at(end),
  detail: '',
});

describe('tying an email copy to the fault in its send window', () => {
  const faults = [
    fault('kill-worker', 'notifications/3', 10),
    fault('kill-worker', 'matching/2', 10),
    fault('pause-worker', 'notifications/4', 0, 19.5),
    fault('postgres-cut', 'postgres', 8, 10.5),
    fault('redis-restart', 'redis', 10, 11),
    fault('emulator-pause', 'emulator', 10, 12),
    fault('smtp-outage', 'smtp', 30, 40),
    fault('network-delay', 'postgres', 50, 55),
    fault('network-delay', 'emulator', 10, 15),
    fault('postgres-long-cut', 'postgres', 70, 200),
    fault('emulator-cut', 'emulator', 60, 190),
    fault('redis-wipe', 'redis', 69, 72),
  ];

  it('names what stops a notifications worker, slows its database or drops SMTP connections while the window is open', () => {
    expect(faultsInSendWindow(faults, at(10))).toEqual([
      'kill-worker notifications/3 @12:00:10',
      'pause-worker notifications/4 @12:00:00',
      'postgres-cut postgres @12:00:08',
    ]);
    // Nearest first: at 6 s the cut (8 s) comes before the kill (10 s); the pause is on.
    expect(faultsInSendWindow(faults, at(6))).toEqual([
      'pause-worker notifications/4 @12:00:00',
      'postgres-cut postgres @12:00:08',
      'kill-worker notifications/3 @12:00:10',
    ]);
    // A kill 4 s after the accept still lands in the window (the log write retrying).
    expect(faultsInSendWindow(faults, at(6))).toContain('kill-worker notifications/3 @12:00:10');
    expect(faultsInSendWindow(faults, at(29))).toEqual(['smtp-outage smtp @12:00:30']);
    expect(faultsInSendWindow(faults, at(52))).toEqual(['network-delay postgres @12:00:50']);
    // A long cut (longer than the send lease) is the database unreachable too; a Redis wipe
    // or the emulator alone never holds up the log write.
    expect(faultsInSendWindow(faults, at(75))).toEqual(['postgres-long-cut postgres @12:01:10']);
  });

  it("opens the window by the sink's lag before it read the message: a kill the lagging chaos process ran before reading bytes written earlier", () => {
    // Kill at 10 s; the sink read the first copy at 10.5 s and answered 250 at 10.7 s.
    const late = { acceptedAt: at(10.7), receivedAt: at(10.5) };
    expect(faultsInSendWindow(faults.slice(0, 2), { ...late, lagMs: 0 })).toEqual([]);
    // The sink's loop was 450 ms late in the second before it read them: the kill is in the window.
    expect(faultsInSendWindow(faults.slice(0, 2), { ...late, lagMs: 450 })).toEqual([
      'kill-worker notifications/3 @12:00:10',
    ]);
    // The lag bounds how far back the window opens: a kill 1 s before the read is not tied by 450 ms.
    expect(
      faultsInSendWindow(faults.slice(0, 2), { acceptedAt: at(11.2), receivedAt: at(11), lagMs: 450 }),
    ).toEqual([]);
    expect(sendWindowOpens({ acceptedAt: at(10.7) })).toBe(at(10.7) - 100);
    expect(sendWindowOpens({ ...late, lagMs: 450 })).toBe(at(10.5) - 550);
  });

  it('ties nothing to a copy whose window no such fault touched', () => {
    expect(faultsInSendWindow(faults, at(21))).toEqual([]);
    expect(faultsInSendWindow(faults, at(10.2), 5_000).length).toBeGreaterThan(0);
    expect(faultsInSendWindow(faults, at(60))).toEqual([]);
  });

  it('closes the window when the senders around the copy wrote their logs, not 5 s after every accept', () => {
    // The fifth soak's case: a worker killed 7 s after the first copy's 250 while, at that load,
    // the emails sent around it took up to 7.5 s from their 250 to their log write.
    const kill = [fault('kill-worker', 'notifications/2', 107)];
    const write = (accept: number, gap: number) => ({ acceptedAt: at(accept), loggedAt: at(accept + gap) });
    const slow = [
      write(69, 9),
      write(95, 0.4),
      write(98, 7.5),
      write(101, 1.2),
      write(129, 2),
      write(131, 20),
    ];
    const closes = sendWindowCloses(at(100), slow);
    // 7.5 s: the slowest within ±30 s (the writes at 69 s and at 131 s lie outside).
    expect(closes).toBe(at(107.5));
    expect(faultsInSendWindow(kill, at(100), closes - at(100))).toEqual([
      'kill-worker notifications/2 @12:01:47',
    ]);
    // With quick writes around it the window keeps its 5 s floor, and the kill at +7 s is not tied.
    const quick = [write(95, 0.4), write(101, 1.2)];
    expect(sendWindowCloses(at(100), quick)).toBe(at(105));
    expect(faultsInSendWindow(kill, at(100), sendWindowCloses(at(100), quick) - at(100))).toEqual([]);
    expect(sendWindowCloses(at(100), [])).toBe(at(105));
  });

  it('lists every fault around other anomalies', () => {
    // 30 s before to 2 s after: whatever overlaps [15 s, 47 s].
    expect(faultsAround(faults, at(45))).toEqual([
      'pause-worker notifications/4 @12:00:00',
      'smtp-outage smtp @12:00:30',
      'network-delay emulator @12:00:10',
    ]);
  });
});
