// The registry file of libs/contracts, read and appended to as text: the
// generator edits the file a reviewer reads, in the workspace it generates
// into (which may be a copy, not the one this code was loaded from).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EventType, SubscriberDefinition } from '@hireflow/contracts';

export const REGISTRY_PATH = 'libs/contracts/src/subscribers.registry.ts';
const MARKER = '  // new:subscriber appends here\n';

/** The subscribers registered in the workspace at `root`: names and ports, as the file says. */
export function readRegistry(root: string): SubscriberDefinition[] {
  const text = readFileSync(join(root, REGISTRY_PATH), 'utf8');
  const entries = text.matchAll(/\{\s*name: '([^']+)',\s*events: \[([^\]]*)\],\s*port: (\d+),?\s*\}/g);
  return [...entries].map(([, name, events, port]) => ({
    name: name!,
    events: [...events!.matchAll(/'([^']+)'/g)].map(([, type]) => type as EventType),
    port: Number(port),
  }));
}

/** Appends the entry before the marker line; the file must still have it. */
export function appendToRegistry(root: string, subscriber: SubscriberDefinition): void {
  const path = join(root, REGISTRY_PATH);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(MARKER))
    throw new Error(`${REGISTRY_PATH} lost its "// new:subscriber appends here" line`);
  const events = subscriber.events.map((type) => `'${type}'`).join(', ');
  const entry = `  { name: '${subscriber.name}', events: [${events}], port: ${subscriber.port} },\n`;
  writeFileSync(path, text.replace(MARKER, entry + MARKER));
}
