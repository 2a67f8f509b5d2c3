// The JSON Schema of each event version, as published in
// libs/contracts/schemas/events/<type>.json: the whole CloudEvent envelope
// with its `data`, the topic and producer beside it, and the deprecation
// when there is one. This is what `pnpm contracts:check` compares; zod
// refinements (`.refine`) have no JSON Schema form and are not compared.
import { z } from 'zod';
import { envelopeSchemaOf } from './envelope.ts';
import type { EventContractsView } from './versions.ts';

type Json = Record<string, unknown>;

/**
 * The envelope's schema as a consumer validates input: `io: 'input'` leaves
 * objects open (no `additionalProperties: false`), as zod's own parsing
 * ignores unknown fields, which is what lets an optional field be added.
 */
export function eventJsonSchema(events: EventContractsView, type: string): Json {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(envelopeSchemaOf(events.catalog, type), {
    target: 'draft-07',
    io: 'input',
  }) as Json;
  return rest;
}

/** One event version's published file: metadata first, then the schema. */
export function publishedEventSchema(events: EventContractsView, type: string): Json {
  const { topic, producer, description } = events.catalog[type]!;
  const deprecation = events.deprecation(type);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: type,
    description,
    'x-topic': topic,
    'x-producer': producer,
    ...(deprecation
      ? { deprecated: true, 'x-sunset': deprecation.sunset, 'x-replaced-by': deprecation.replacedBy }
      : {}),
    ...eventJsonSchema(events, type),
  };
}
