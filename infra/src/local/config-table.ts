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

export async function configTables(): Promise<{ service: string; notifications: string; launcher: string }> {
  const { configSchema: jobs } = await import('../../../services/jobs/src/config.ts');
  const { configSchema: notifications } = await import('../../../services/notifications/src/config.ts');
  const shared = new Set(Object.keys(jobs.shape));
  const onlyNotifications = Object.fromEntries(
    Object.entries(notifications.shape).filter(([k]) => !shared.has(k)),
  );
  const { z: zod } = await import('zod');
  return {
    // The table is the jobs service's, written for any service.
    service: markdownTable(jobs)
      .replace('hireflow_jobs', 'hireflow_<service>')
      .replace('`hf:jobs`', '`hf:<service>`')
      .replace('| `3001` |', '| `3001` jobs, `3002` matching, `3003` notifications, `3004` media |'),
    notifications: markdownTable(zod.object(onlyNotifications as z.ZodRawShape)),
    launcher: markdownTable(launcherSchema),
  };
}

if (import.meta.main) {
  const t = await configTables();
  console.log(
    `### Every service\n\n${t.service}\n\n### notifications also\n\n${t.notifications}\n\n### \`pnpm start\` (the launcher)\n\n${t.launcher}`,
  );
}
