/**
 * What the library logs through: the service's pino logger (or any logger of
 * that shape), injected. The library never makes a logger of its own.
 */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silent,
};

/** The component's child of the injected logger; silent when none is given (tests, tools). */
export function resolveLogger(logger: Logger | undefined, component: string): Logger {
  return (logger ?? silent).child({ component });
}
