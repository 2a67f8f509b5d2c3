import { ConfigError } from './parse.ts';

/**
 * A command's settings, or its bad variables named on stderr and exit 78
 * (EX_CONFIG), as a service does when its configuration is wrong. For the
 * entry files of the tools (`@hireflow/config/cli`) only: as a service's
 * main.ts, a command decides when its process ends; library code never does.
 */
export function settingsOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(78);
  }
}
