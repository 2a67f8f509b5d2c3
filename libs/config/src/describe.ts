import type { z } from 'zod';

export interface ConfigVariable {
  name: string;
  description: string;
  default: string | undefined;
  required: boolean;
}

/** Lists a config schema's variables with their descriptions and defaults (for docs and `--help`). */
export function describeConfig(schema: z.ZodObject): ConfigVariable[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const type = field as z.ZodType;
    const parsed = type.safeParse(undefined);
    const fallback = parsed.success && parsed.data !== undefined ? String(parsed.data) : undefined;
    return {
      name,
      description: type.description ?? '',
      default: fallback,
      required: !parsed.success,
    };
  });
}
