// Prints the README's configuration tables from the config schemas themselves:
// `node infra/src/local/config-table.ts`. A test keeps the README in step.
import { describeConfig } from '@hireflow/config';
import type { z } from 'zod';
import { launcherSchema } from './settings.ts';

export function markdownTable(schema: z.ZodObject): string {
  const rows = describeConfig(schema).map(
    (v) => `| \`${v.name}\` | ${shownDefault(v.default, v.required)} | ${v.description} |`,
  );
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

function shownDefault(value: string | undefined, required: boolean): string {
  if (value === undefined) return required ? 'required' : '(unset)';
  return value === '' ? '(empty)' : `\`${value}\``;
}

/** The README's tables: what every service reads, what each adds, and the launcher. */
export async function configTables(): Promise<
  Record<'service' | 'jobs' | 'notifications' | 'launcher', string>
> {
  const { z: zod } = await import('zod');
  const { configSchema: jobs } = await import('../../../services/jobs/src/config.ts');
  const { configSchema: notifications } = await import('../../../services/notifications/src/config.ts');
  const { serviceConfigSchema } = await import('../../../libs/runtime/src/service-config.ts');
  const shared = serviceConfigSchema('jobs', 3001);
  const own = (schema: z.ZodObject) =>
    markdownTable(
      zod.object(
        Object.fromEntries(
          Object.entries(schema.shape).filter(([key]) => !(key in shared.shape)),
        ) as z.ZodRawShape,
      ),
    );
  return {
    // The shared table is the jobs service's, written for any service.
    service: markdownTable(shared)
      .replace('hireflow_jobs', 'hireflow_<service>')
      .replace('`hf:jobs`', '`hf:<service>`')
      .replace('| `3001` |', '| `3001` jobs, `3002` matching, `3003` notifications, `3004` media |'),
    jobs: own(jobs),
    notifications: own(notifications),
    launcher: markdownTable(launcherSchema),
  };
}

if (import.meta.main) {
  const t = await configTables();
  console.log(
    `### Every service\n\n${t.service}\n\n### jobs also\n\n${t.jobs}\n\n### notifications also\n\n${t.notifications}\n\n### \`pnpm start\` (the launcher)\n\n${t.launcher}`,
  );
}
