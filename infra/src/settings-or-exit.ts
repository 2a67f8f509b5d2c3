import { ConfigError } from '@hireflow/config';

/**
 * A command's settings, or its bad variables named on stderr and exit 78
 * (EX_CONFIG), as a service does when its configuration is wrong.
 */
export function settingsOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(78);
  }
}
