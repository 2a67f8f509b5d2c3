import { type Logger, pino } from 'pino';

export type { Logger };

/** Libraries log through an injected pino logger; silent unless given one. */
export function resolveLogger(logger: Logger | undefined, component: string): Logger {
  return (logger ?? pino({ level: 'silent' })).child({ component });
}
