import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ServiceName } from '@hireflow/contracts';

/** How far a replay got: enough to resume it after an interruption and reach the same end state. */
export interface ReplayState {
  version: 1;
  /** The queue's full name (with the topology prefix). */
  queue: string;
  types: string[];
  since: string | null;
  /** Fixed when the replay started, so a resumed run ends where the first would have. */
  until: string;
  /** Per producer, the log position of the last event sent (every one before it was sent too). */
  positions: Partial<Record<ServiceName, string>>;
  /** Producers whose log was sent to the end. */
  finished: ServiceName[];
  /** Events sent by every run of this replay so far. */
  sent: number;
  startedAt: string;
  updatedAt: string;
}

/** What identifies a replay: a checkpoint resumes only the same one. */
export interface ReplayIdentity {
  queue: string;
  types: string[];
  since: string | null;
  /** Only when given explicitly: a resumed run otherwise keeps the first run's end. */
  until?: string | undefined;
}

/** Why a checkpoint belongs to another replay, or undefined when it is this one's. */
export function checkpointMismatch(state: ReplayState, identity: ReplayIdentity): string | undefined {
  if (state.queue !== identity.queue) return `it replays into ${state.queue}`;
  if ([...state.types].sort().join(',') !== [...identity.types].sort().join(','))
    return `it replays ${state.types.join(', ')}`;
  if (state.since !== identity.since) return `it replays since ${state.since ?? 'the start of the log'}`;
  if (identity.until !== undefined && state.until !== identity.until)
    return `it replays until ${state.until}`;
  return undefined;
}

/**
 * The checkpoint as a JSON file, replaced atomically (write, then rename) so
 * that a replay killed mid-write leaves the previous one. Writes are queued:
 * at most one at a time, in order.
 */
export class CheckpointFile {
  readonly path: string;
  #writing: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.path = path;
  }

  async load(): Promise<ReplayState | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const state = JSON.parse(text) as ReplayState;
    if (state.version !== 1) throw new Error(`${this.path} is not a replay checkpoint this version can read`);
    return state;
  }

  save(state: ReplayState): Promise<void> {
    const snapshot = `${JSON.stringify({ ...state, updatedAt: new Date().toISOString() }, null, 2)}\n`;
    this.#writing = this.#writing.then(async () => {
      await mkdir(dirname(this.path), { recursive: true });
      const temporary = `${this.path}.${process.pid}.tmp`;
      await writeFile(temporary, snapshot);
      await rename(temporary, this.path);
    });
    return this.#writing;
  }

  async remove(): Promise<void> {
    await this.#writing.catch(() => undefined);
    await rm(this.path, { force: true });
  }
}
