// The generated service is the template tree (`templates/`, one `.tmpl` per
// file it writes) with its placeholders filled: `__name__`, `__camel__`,
// `__port__`, `__adminPort__`, and the blocks that repeat per event type.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type EventType, eventCatalog } from '@hireflow/contracts';
import { camelCase, handlerName } from './names.ts';

export interface SubscriberSpec {
  name: string;
  events: EventType[];
  port: number;
}

const TEMPLATES = fileURLToPath(new URL('../templates/', import.meta.url));

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

function handlerFunction(type: EventType): string {
  return `/** ${type}: ${eventCatalog[type].description} */
export async function ${handlerName(type)}(em: Sql, event: CloudEvent<'${type}'>): Promise<void> {
  // event.data is EventData<'${type}'>, validated against the catalog before this runs.
  await recordEvent(em, event);
}`;
}

function consumerEntry(type: EventType): string {
  return `    '${type}': async (event: CloudEvent<'${type}'>) => {
      await handleOnce(orm, event, (em) => ${handlerName(type)}(em, event));
    },`;
}

const eventRow = (type: EventType) =>
  `| \`${type}\` | ${eventCatalog[type].topic} | ${eventCatalog[type].description} | \`${handlerName(type)}\` |`;

/** Every file of the service: its path inside the service's folder → its text. */
export function renderSubscriber(spec: SubscriberSpec): Record<string, string> {
  const values: Record<string, string> = {
    __name__: spec.name,
    __camel__: camelCase(spec.name),
    __port__: String(spec.port),
    __adminPort__: String(spec.port + 1000),
    __handlerNames__: spec.events.map(handlerName).sort().join(', '),
    __handlers__: spec.events.map(handlerFunction).join('\n\n'),
    __consumers__: spec.events.map(consumerEntry).join('\n'),
    __types__: spec.events.map((type) => `'${type}'`).join(', '),
    __eventRows__: spec.events.map(eventRow).join('\n'),
  };
  const files: Record<string, string> = {};
  for (const path of walk(TEMPLATES)) {
    const text = readFileSync(path, 'utf8').replace(/__[a-zA-Z]+__/g, (key) => values[key] ?? key);
    files[relative(TEMPLATES, path).replace(/\.tmpl$/, '')] = text;
  }
  return files;
}
