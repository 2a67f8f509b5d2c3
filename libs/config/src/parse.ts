import type { z } from 'zod';

export interface ConfigIssue {
  variable: string;
  message: string;
}

/** Thrown when the environment does not satisfy a service's config schema; names every bad variable. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  readonly issues: ConfigIssue[];

  constructor(issues: ConfigIssue[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i.variable}: ${i.message}`).join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/**
 * Parses environment variables against a schema whose keys are the variable
 * names. Empty strings count as unset, so `FOO= node main.ts` falls back to
 * the default instead of failing on "".
 */
export function parseConfig<S extends z.ZodObject>(
  schema: S,
  env: Record<string, string | undefined>,
): z.output<S> {
  const input: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    variable: String(issue.path[0] ?? '(root)'),
    message: issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message,
  }));
  throw new ConfigError(issues);
}
