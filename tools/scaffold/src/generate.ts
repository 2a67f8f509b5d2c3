import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { type EventType, nextSubscriberPort, subscriberProblems } from '@hireflow/contracts';
import { appendToRegistry, readRegistry } from './registry.ts';
import { renderSubscriber, type SubscriberSpec } from './render.ts';

export interface GenerateOptions {
  /** The workspace's root (where pnpm-workspace.yaml is). */
  root: string;
  name: string;
  events: string[];
  /** Where the service goes, relative to root: default `services/<name>`. */
  dir?: string;
}

export interface Generated {
  subscriber: SubscriberSpec;
  /** The service's folder, relative to root. */
  dir: string;
  /** Every file written, relative to root (the registry included). */
  files: string[];
}

/** Refused input, one message per field (`name: …`, `events: …`, `dir: …`). */
export class GenerateError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join('; '));
    this.name = 'GenerateError';
    this.problems = problems;
  }
}

/**
 * Writes a subscriber service into the workspace at `root` and registers it
 * (its inbox, DLQ and filter policy follow from the registry entry). Refuses,
 * writing nothing, a bad name, an unknown event type or a folder that exists.
 */
export function generateSubscriber(options: GenerateOptions): Generated {
  const registered = readRegistry(options.root);
  const subscriber: SubscriberSpec = {
    name: options.name,
    events: options.events as EventType[],
    port: nextSubscriberPort(registered),
  };
  const problems = subscriberProblems(subscriber, registered);
  const dir = options.dir ?? `services/${options.name}`;
  const target = resolve(options.root, dir);
  const inside = relative(resolve(options.root), target);
  // pnpm's workspace, the test config and the launcher know services/* only.
  if (!/^services\/[a-z0-9][a-z0-9-]*$/.test(inside)) {
    problems.push('dir: must be a new folder services/<folder> of the workspace');
  } else if (existsSync(target)) {
    problems.push(`dir: ${inside} already exists`);
  }
  if (problems.length > 0) throw new GenerateError(problems);

  const files = renderSubscriber(subscriber);
  for (const [file, text] of Object.entries(files)) {
    const path = join(target, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  appendToRegistry(options.root, subscriber);
  return {
    subscriber,
    dir: inside,
    files: [
      ...Object.keys(files).map((file) => `${inside}/${file}`),
      'libs/contracts/src/subscribers.registry.ts',
    ],
  };
}
