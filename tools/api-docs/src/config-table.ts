// The README's configuration tables, from the config schemas themselves:
// `pnpm readme:config` rewrites them; test/readme.test.ts keeps the README
// in step.
import { describeConfig } from '@hireflow/config';
import { SERVICE_NAMES, type ServiceName, servicePort } from '@hireflow/contracts';
import { launcherSchema } from '@hireflow/launcher';
import { replayConfigSchema } from '@hireflow/ops/replay';
import { serviceConfigSchema } from '@hireflow/runtime';
import { z } from 'zod';

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

/** Each service's config schema, loaded by package name. */
async function serviceSchemas(): Promise<Record<ServiceName, z.ZodObject>> {
  return {
    jobs: (await import('@hireflow/jobs/config')).configSchema,
    matching: (await import('@hireflow/matching/config')).configSchema,
    notifications: (await import('@hireflow/notifications/config')).configSchema,
    media: (await import('@hireflow/media/config')).configSchema,
  };
}

/** The README's tables by section title: what every service reads, what each adds, and the launcher. */
export async function configTables(): Promise<{ sections: Record<string, string> }> {
  const shared = serviceConfigSchema('jobs');
  const ports = SERVICE_NAMES.map((s) => `\`${servicePort(s)}\` ${s}`).join(', ');
  const sections: Record<string, string> = {
    // The shared table is the jobs service's, written for any service.
    'Every service': markdownTable(shared)
      .replace('hireflow_jobs', 'hireflow_<service>')
      .replace('`hf:jobs`', '`hf:<service>`')
      .replace(`| \`${servicePort('jobs')}\` |`, `| ${ports} |`),
  };
  for (const [service, schema] of Object.entries(await serviceSchemas())) {
    const own = Object.fromEntries(Object.entries(schema.shape).filter(([key]) => !(key in shared.shape)));
    if (Object.keys(own).length > 0)
      sections[`${service} also`] = markdownTable(z.object(own as z.ZodRawShape));
  }
  sections['`pnpm start` (the launcher)'] = markdownTable(launcherSchema);
  sections['`pnpm replay`'] = markdownTable(replayConfigSchema);
  return { sections };
}
