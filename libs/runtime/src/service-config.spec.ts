import { describe, expect, it } from 'vitest';
import { samplesQueues } from './service-config.ts';

describe('samplesQueues', () => {
  it('is on where the worker runs and off in an API process unless QUEUE_METRICS says otherwise', () => {
    expect(samplesQueues({ ROLE: 'all', QUEUE_METRICS: undefined })).toBe(true);
    expect(samplesQueues({ ROLE: 'worker', QUEUE_METRICS: undefined })).toBe(true);
    // An API process loads no BullMQ, whose queues the sampler reads (issue 31).
    expect(samplesQueues({ ROLE: 'api', QUEUE_METRICS: undefined })).toBe(false);
    expect(samplesQueues({ ROLE: 'api', QUEUE_METRICS: 'on' })).toBe(true);
    expect(samplesQueues({ ROLE: 'worker', QUEUE_METRICS: 'off' })).toBe(false);
  });
});
