export type { NewSubscriberArgs } from './args.ts';
export { parseArgs, USAGE } from './args.ts';
export { formatFiles } from './format.ts';
export type { Generated, GenerateOptions } from './generate.ts';
export { GenerateError, generateSubscriber } from './generate.ts';
export { appendToRegistry, REGISTRY_PATH, readRegistry } from './registry.ts';
