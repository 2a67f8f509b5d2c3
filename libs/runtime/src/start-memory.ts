// What a start leaves behind (issue 31, fifth pass). A service's start
// allocates far more than it keeps (~1,700 modules compiled, schemas, the
// ORM's metadata): its garbage grows V8's young generation to its cap
// (2 × 4 MB, SERVICE_NODE_FLAGS) and leaves the old generation in partly
// used pages, and an idle process triggers no collection that would give
// them back. One memory-reducing collection once the process is ready
// (V8's "last resort" flavour: it compacts, shrinks the young generation and
// releases the freed pages) takes ~9 MB off an idle service's RSS; a regular
// full collection frees the same objects and no RSS (docs/performance.md,
// "Fifth pass"). Under work the young generation grows back as it needs to.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options?: { type?: 'major'; execution?: 'sync'; flavor?: 'last-resort' }) => void;

/**
 * Runs one memory-reducing full collection, synchronously (tens of ms on
 * the main thread, once). `gc` is reached through a context of its own,
 * created while `--expose-gc` is set and unset at once: V8's code caches
 * carry a hash of its flags, so a flag left on (or on the command line)
 * would make every cached module (Node's compile cache) a miss for the
 * modules loaded later, and key the cache apart from the other processes'.
 */
export function releaseStartMemory(): void {
  setFlagsFromString('--expose-gc');
  let gc: Gc | undefined;
  try {
    gc = runInNewContext('gc') as Gc | undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
