// What libs/contracts/schemas/ holds, built from the catalog: one JSON Schema
// per event version (events/<type>.json) and the AsyncAPI document. The
// files are committed (`pnpm contracts:generate` rewrites them; a test fails
// when they are stale) so that subscribers outside this repository, and
// reviewers, see each contract as data.
import { renderAsyncApi } from './asyncapi.ts';
import { publishedEventSchema } from './json-schema.ts';
import { type EventContractsView, hireflowEvents } from './versions.ts';

type Json = Record<string, unknown>;

export const ASYNCAPI_FILE = 'asyncapi.json';
export const EVENTS_DIR = 'events';

/** Each event version's published schema, by type. */
export function publishedEvents(events: EventContractsView = hireflowEvents): Record<string, Json> {
  return Object.fromEntries(events.types.map((type) => [type, publishedEventSchema(events, type)]));
}

const render = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** The published files, by path relative to the schemas folder, as committed. */
export function publishedFiles(events: EventContractsView = hireflowEvents): Map<string, string> {
  const files = new Map<string, string>([[ASYNCAPI_FILE, renderAsyncApi(events)]]);
  for (const [type, schema] of Object.entries(publishedEvents(events))) {
    files.set(`${EVENTS_DIR}/${type}.json`, render(schema));
  }
  return files;
}
