export { buildAsyncApi, messageAttributesSchema, renderAsyncApi } from './asyncapi.ts';
export type { AnyEvent, CloudEvent, CreateEventOptions, EventIssue, EventSource } from './envelope.ts';
export { createEvent, envelopeSchema, InvalidEventError, parseEvent } from './envelope.ts';
export type { EventCatalog, EventData, EventType, EventTypeOn, ServiceName, TopicName } from './events.ts';
export {
  apikeyIssuedData,
  apikeyRevokedData,
  candidateRegisteredData,
  eventCatalog,
  eventTypes,
  isEventType,
  jobClosedData,
  jobMatchedData,
  jobPostedData,
  matchFoundData,
  mediaFailedData,
  mediaProcessedData,
  mediaVariant,
  topicOf,
} from './events.ts';
export type { PublicRoute, PublicService } from './public-routes.ts';
export { loadBalancerPatterns, PUBLIC_ROUTES, patternsOf, routeOf } from './public-routes.ts';
export type { WorkerScalingPolicy } from './scaling.ts';
export { scalingPolicyProblems, workerScaling } from './scaling.ts';
export {
  ADMIN_PORT_OFFSET,
  adminPortFor,
  PUBLIC_API_PORT,
  SERVICE_NAMES,
  SERVICE_PORT_BASE,
  servicePort,
} from './services.ts';
export { containsLinkOrAddress, hasControlCharacter, hasLoneSurrogate, text } from './text.ts';
export type {
  BucketDefinition,
  QueueDefinition,
  SubscriptionDefinition,
  TopicDefinition,
  Topology,
} from './topology.ts';
export {
  DEFAULT_MAX_RECEIVE_COUNT,
  DEFAULT_VISIBILITY_TIMEOUT_SECONDS,
  dlqName,
  serviceChannels,
  topology,
} from './topology.ts';
