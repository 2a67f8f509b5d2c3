/**
 * The run's one clock: the SMTP catcher stamps accepts with it, so every
 * time in a report (requests, faults, samples, emails) is on the same
 * monotonic scale, whatever the wall clock does meanwhile.
 */
export const now = (): number => performance.timeOrigin + performance.now();
