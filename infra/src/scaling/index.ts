export type { WorkerScalingPolicy } from './policy.ts';
export { scalingPolicyProblems, workerScaling } from './policy.ts';
