import { createRequire } from 'node:module';
import type * as BullMQ from 'bullmq';

// The BullMQ classes Hireflow runs, each `require`d from its own file. BullMQ's
// index also loads what no Hireflow process uses: its PostgreSQL backend (SQL
// scripts of 250 kB), the node-redis, Bun and Valkey GLIDE connections, flows,
// relays and sandboxes, ~80 files and 0.6 MB of source, ~1.5 MB of a worker's
// heap (issue 31, docs/performance.md "Ninth pass"). The files are BullMQ's
// CommonJS build; classes.spec.ts checks they are the very classes its index
// exports, so a release that moves them fails there, not in production.
const require = createRequire(import.meta.url);
const build = 'bullmq/dist/cjs/classes';

export const { Queue } = require(`${build}/queue.js`) as Pick<typeof BullMQ, 'Queue'>;
export const { Worker } = require(`${build}/worker.js`) as Pick<typeof BullMQ, 'Worker'>;
export const { DelayedError } = require(`${build}/errors/delayed-error.js`) as Pick<
  typeof BullMQ,
  'DelayedError'
>;
