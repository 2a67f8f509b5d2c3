export type {
  Accepted,
  CallOptions,
  Candidate,
  CandidateBatchAccepted,
  CandidateBatchItem,
  CandidatePage,
  HireflowClient,
  HireflowClientOptions,
  JobStatusEvent,
  ListQuery,
  Match,
  MatchPage,
  NewCandidate,
  NewJob,
  NewWebhook,
  Posting,
  PostingPage,
  Upload,
  UploadAccepted,
  UploadOptions,
  WebhookChange,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './client.ts';
export { createHireflowClient } from './client.ts';
export type { components, operations, paths } from './openapi.generated.ts';
export type { Page } from './pages.ts';
export { allItems } from './pages.ts';
export type { Problem } from './problem.ts';
export { HireflowProblem, problemOf } from './problem.ts';
export type { ServerSentEvent } from './sse.ts';
export { readServerSentEvents } from './sse.ts';
export type { WebhookEvent, WebhookHeaders } from './webhooks.ts';
export { verifyWebhook, WebhookVerificationError } from './webhooks.ts';
