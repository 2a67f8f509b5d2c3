import { describe, expect, it } from 'vitest';
import { scalingPolicyProblems, type WorkerScalingPolicy, workerScaling } from './scaling.ts';

describe('worker scaling policy', () => {
  it('names every service and holds together', () => {
    expect(Object.keys(workerScaling).sort()).toEqual(['jobs', 'matching', 'media', 'notifications']);
    expect(scalingPolicyProblems(workerScaling)).toEqual([]);
  });

  it('refuses a policy neither executor could follow', () => {
    const bad: WorkerScalingPolicy = {
      ...workerScaling.jobs,
      minWorkers: 0,
      maxWorkers: 0,
      backlogPerWorker: 2.5,
      quietPeriodBeforeScaleInSeconds: 90,
    };
    expect(scalingPolicyProblems({ jobs: bad })).toEqual([
      'jobs: minWorkers must be a whole number ≥ 1',
      'jobs: backlogPerWorker must be a whole number ≥ 1',
      'jobs: quietPeriodBeforeScaleInSeconds must be whole minutes, at most a day',
    ]);
    expect(scalingPolicyProblems({ jobs: { ...workerScaling.jobs, maxWorkers: 0 } })).toEqual([
      'jobs: maxWorkers must be a whole number ≥ 1',
    ]);
  });
});
