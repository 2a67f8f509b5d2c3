import { loggerOptions } from '@hireflow/runtime';
import pino, { type Logger } from 'pino';

export type { Logger };

/** The worker role's logger: JSON lines with the service name, secrets redacted. */
export function createLogger(level: string, bindings: Record<string, string> = {}): Logger {
  const options = loggerOptions('notifications', level);
  return pino({ ...options, base: { ...options.base, ...bindings } });
}
