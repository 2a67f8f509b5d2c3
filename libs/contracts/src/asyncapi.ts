// Builds the AsyncAPI 3.0 document of the catalog from the zod schemas:
// channels are the SNS topics, messages the event types. Committed as
// libs/contracts/schemas/asyncapi.json (`pnpm contracts:generate`).
import { eventJsonSchema } from './json-schema.ts';
import { type EventContractsView, hireflowEvents } from './versions.ts';

type Json = Record<string, unknown>;

const ref = (path: string) => ({ $ref: path });

/** SNS message attributes every event carries (the filter attribute and the W3C trace context). */
export const messageAttributesSchema = {
  type: 'object',
  description:
    'SNS/SQS message attributes. `type` drives subscription filter policies; the W3C trace context keeps one trace across the hop. At most 7 attributes of our own (SQS keeps 10).',
  required: ['type'],
  properties: {
    type: {
      type: 'string',
      description: 'The CloudEvent type, e.g. job.posted.v1 (filter policies match on it).',
    },
    traceparent: { type: 'string', description: 'W3C Trace Context traceparent of the producing request.' },
    tracestate: { type: 'string', description: 'W3C Trace Context tracestate, when present.' },
    baggage: { type: 'string', description: 'W3C Baggage, when present.' },
  },
} as const;

function topics(contracts: EventContractsView): Map<string, { producer: string; types: string[] }> {
  const byTopic = new Map<string, { producer: string; types: string[] }>();
  for (const type of contracts.types) {
    const { topic, producer } = contracts.catalog[type]!;
    const found = byTopic.get(topic) ?? { producer, types: [] };
    found.types.push(type);
    byTopic.set(topic, found);
  }
  return byTopic;
}

export function buildAsyncApi(events: EventContractsView = hireflowEvents): Json {
  const channels: Json = {};
  const operations: Json = {};
  for (const [topic, { producer, types }] of topics(events)) {
    channels[topic] = {
      address: topic,
      title: topic,
      description: `SNS topic of the ${producer} service; queues subscribe with raw delivery and a filter policy on the \`type\` attribute.`,
      messages: Object.fromEntries(types.map((t) => [t, ref(`#/components/messages/${t}`)])),
    };
    operations[`${producer}.publish`] = {
      action: 'send',
      title: `${producer} publishes to ${topic}`,
      description: 'Relayed from the transactional outbox of the service.',
      channel: ref(`#/channels/${topic}`),
      messages: types.map((t) => ref(`#/channels/${topic}/messages/${t}`)),
    };
  }
  const messages: Json = {};
  const schemas: Json = { MessageAttributes: messageAttributesSchema };
  for (const type of events.types) {
    const { description, producer } = events.catalog[type]!;
    const deprecation = events.deprecation(type);
    schemas[type] = {
      ...eventJsonSchema(events, type),
      // AsyncAPI's Schema Object has `deprecated`; its Message Object does not, hence the x- fields.
      ...(deprecation ? { deprecated: true } : {}),
    };
    messages[type] = {
      name: type,
      title: type,
      summary: deprecation
        ? `${description} Deprecated: replaced by ${deprecation.replacedBy}, published until ${deprecation.sunset}.`
        : description,
      contentType: 'application/json',
      headers: {
        ...messageAttributesSchema,
        properties: { ...messageAttributesSchema.properties, type: { type: 'string', const: type } },
      },
      payload: ref(`#/components/schemas/${type}`),
      correlationId: {
        description: 'The CloudEvent id: one event across every redelivery.',
        location: '$message.payload#/id',
      },
      'x-producer': producer,
      ...(deprecation ? { 'x-sunset': deprecation.sunset, 'x-replaced-by': deprecation.replacedBy } : {}),
    };
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Hireflow events',
      version: '1.0.0',
      description:
        'The event catalog. Every message body is a CloudEvents 1.0 event in structured JSON mode. Generated from libs/contracts/src/events.ts by `pnpm contracts:generate`: do not edit by hand. Evolution rules: docs/contracts.md.',
    },
    defaultContentType: 'application/json',
    channels,
    operations,
    components: { messages, schemas },
  };
}

/** The document as committed: stable key order, two-space indent, trailing newline. */
export function renderAsyncApi(events: EventContractsView = hireflowEvents): string {
  return `${JSON.stringify(buildAsyncApi(events), null, 2)}\n`;
}
