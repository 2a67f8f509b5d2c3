export { buildApp } from './app.ts';
export type { StackSettings } from './config.ts';
export { DEFAULT_COLLECTOR_IMAGE, settingsFromContext, settingsSchema, stackNameOf } from './config.ts';
export type { Inbox } from './messaging.ts';
export { constructId, Messaging } from './messaging.ts';
export { BUCKET_OBJECT_ACTIONS, DEAD_LETTER_ACTIONS, INBOX_ACTIONS } from './permissions.ts';
export type { ApiPlan, ServicePlan, TaskSize } from './plan.ts';
export {
  adminPortOf,
  capacityFor,
  connectionProblems,
  deploymentPlan,
  deploymentPlanFor,
  workerScalingFor,
} from './plan.ts';
export { SMTP_URL_PLACEHOLDER } from './secrets.ts';
export type { HireflowStackProps } from './stack.ts';
export { HireflowStack } from './stack.ts';
export { COLLECTOR_CONFIG, OTLP_ENDPOINT } from './telemetry.ts';
