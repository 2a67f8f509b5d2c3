import { randomUUID } from 'node:crypto';

export interface RecordedCall {
  name: string;
  input: Record<string, unknown>;
  at: number;
}

/** Records the input of every command a client sends (the request itself, not what the emulator returns). */
export function recordCommands(client: {
  middlewareStack: { add: (mw: never, opts: { step: 'initialize'; name: string }) => void };
}): RecordedCall[] {
  const calls: RecordedCall[] = [];
  const middleware =
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
    async (args: { input: Record<string, unknown> }) => {
      calls.push({ name: context.commandName ?? '?', input: structuredClone(args.input), at: Date.now() });
      return next(args);
    };
  client.middlewareStack.add(middleware as never, { step: 'initialize', name: `record-${randomUUID()}` });
  return calls;
}
