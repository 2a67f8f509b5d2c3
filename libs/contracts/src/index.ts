export { apiKeyEventSigned, signApiKeyEvent } from './apikey-signature.ts';
export { buildAsyncApi, messageAttributesSchema, renderAsyncApi } from './asyncapi.ts';
export { compareEvents, KEEP_AFTER_SUNSET_DAYS, MIN_DEPRECATION_DAYS } from './compat/events.ts';
export { compareOpenApi } from './compat/openapi.ts';
export type { Finding, SchemaRole, Verdict } from './compat/rules.ts';
export { judge } from './compat/rules.ts';
export type { ChangeKind, RefResolver, SchemaChange } from './compat/schema-diff.ts';
export { diffSchemas } from './compat/schema-diff.ts';
export type { DisplayTextProblem } from './display-text.ts';
export { containsLinkOrAddress, displayText, displayTextProblem } from './display-text.ts';
export type {
  AnyEvent,
  AnyEventOf,
  CloudEvent,
  CloudEventOf,
  CreateEventOptions,
  DataOf,
  EventIssue,
  EventLane,
  EventSource,
  TypeOf,
} from './envelope.ts';
export {
  createEvent,
  createEventOf,
  EVENT_LANES,
  envelopeSchema,
  envelopeSchemaOf,
  InvalidEventError,
  parseEvent,
  parseEventOf,
} from './envelope.ts';
export type {
  Catalog,
  CatalogEntry,
  EventCatalog,
  EventData,
  EventType,
  EventTypeOn,
  ServiceName,
  TopicName,
} from './events.ts';
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
export type { ExternalSubscriber } from './external-subscribers.ts';
export {
  externalSubscriberProblems,
  externalSubscriberTopology,
  parseExternalSubscribers,
} from './external-subscribers.ts';
export { eventJsonSchema, publishedEventSchema } from './json-schema.ts';
export type { PublicRoute, PublicService } from './public-routes.ts';
export { loadBalancerPatterns, PUBLIC_ROUTES, patternsOf, routeOf } from './public-routes.ts';
export { publishedEvents, publishedFiles } from './published.ts';
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
export type { SubscriberName } from './subscribers.registry.ts';
export { registeredSubscribers } from './subscribers.registry.ts';
export type { SubscriberDefinition } from './subscribers.ts';
export {
  consumerPort,
  nextSubscriberPort,
  SUBSCRIBER_NAMES,
  SUBSCRIBER_PORT_BASE,
  subscriberInbox,
  subscriberNamed,
  subscriberPort,
  subscriberProblems,
  subscriberQueue,
  subscriptionsFor,
} from './subscribers.ts';
export { hasControlCharacter, hasLoneSurrogate, text } from './text.ts';
export type {
  BucketDefinition,
  ConsumerName,
  FilterPolicy,
  QueueDefinition,
  SubscriptionDefinition,
  TopicDefinition,
  Topology,
} from './topology.ts';
export {
  DEFAULT_MAX_RECEIVE_COUNT,
  DEFAULT_VISIBILITY_TIMEOUT_SECONDS,
  dlqName,
  filterPolicy,
  laneQueue,
  serviceChannels,
  topology,
} from './topology.ts';
export {
  escapeForSqs,
  isSqsText,
  nonSqsTextPath,
  SQS_TEXT,
  SQS_TEXT_MESSAGE,
  sqsText,
  toSqsText,
} from './transport/sqs-text.ts';
export type { DeprecationOf, Deprecations, EventContracts, EventContractsView } from './versions.ts';
export {
  defineEventContracts,
  derivedEventId,
  eventDeprecations,
  hireflowEvents,
  parseTypeName,
} from './versions.ts';
