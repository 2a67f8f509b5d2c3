import type { EventType } from '@hireflow/contracts';

/** `search-indexer` → `searchIndexer`. */
export const camelCase = (name: string): string =>
  name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** `job.posted.v1` → `onJobPostedV1`: the handler the generated service calls for that type. */
export function handlerName(type: EventType): string {
  return `on${type
    .split('.')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}`;
}
