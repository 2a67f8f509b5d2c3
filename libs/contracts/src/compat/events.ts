// The event catalog against its last release (docs/contracts.md): each
// released event version must still be published, on the same topic, by
// the same producer, with a schema that reads both ways (rules.ts).
import { type Finding, judge } from './rules.ts';
import { diffSchemas } from './schema-diff.ts';

type Json = Record<string, unknown>;

/** A deprecated version is announced this long before its sunset, at least. */
export const MIN_DEPRECATION_DAYS = 90;
/**
 * After its sunset a version stays in the catalog as long as the producers'
 * event log keeps its events (365 days by default, @hireflow/messaging's
 * DEFAULT_EVENT_LOG_RETENTION_DAYS), so `pnpm replay` can still send them and
 * consumers still upcast them; only then may it leave.
 */
export const KEEP_AFTER_SUNSET_DAYS = 365;

const DAY_MS = 24 * 3600 * 1000;
const METADATA = new Set(['$schema', 'title', 'description', 'deprecated']);

/** The schema proper: the published file without its metadata (descriptions, x- fields). */
function schemaOf(file: Json): Json {
  return Object.fromEntries(Object.entries(file).filter(([k]) => !METADATA.has(k) && !k.startsWith('x-')));
}

const day = (date: string) => Date.parse(`${date}T00:00:00Z`);
const today = (now: Date) => day(now.toISOString().slice(0, 10));

function removal(type: string, released: Json, now: Date): Finding {
  const sunset = released['x-sunset'] as string | undefined;
  const base = { subject: type, path: '', kind: 'type-removed' };
  if (sunset && today(now) > day(sunset) + KEEP_AFTER_SUNSET_DAYS * DAY_MS) {
    return {
      ...base,
      detail: `removed after its sunset (${sunset}) and the event log's retention`,
      breaking: false,
    };
  }
  const detail = sunset
    ? `removed before ${KEEP_AFTER_SUNSET_DAYS} days after its sunset (${sunset}): the event log still holds its events`
    : 'removed, but it was never deprecated';
  return { ...base, detail, breaking: true, why: 'queues subscribed to it would get nothing' };
}

function deprecationFindings(type: string, released: Json, current: Json, now: Date): Finding[] {
  const before = released['x-sunset'] as string | undefined;
  const after = current['x-sunset'] as string | undefined;
  const at = (kind: string, detail: string, breaking: boolean, why?: string): Finding => ({
    subject: type,
    path: '',
    kind,
    detail,
    breaking,
    ...(why ? { why } : {}),
  });
  if (!after || after === before) return [];
  if (before && day(after) < day(before)) {
    return [
      at('sunset-earlier', `sunset ${before} → ${after}`, true, 'subscribers plan on the released date'),
    ];
  }
  if (!before && day(after) < today(now) + MIN_DEPRECATION_DAYS * DAY_MS) {
    return [
      at(
        'deprecation-window',
        `sunset ${after} is less than ${MIN_DEPRECATION_DAYS} days away`,
        true,
        `subscribers get at least ${MIN_DEPRECATION_DAYS} days to move to ${String(current['x-replaced-by'])}`,
      ),
    ];
  }
  return [
    at('deprecated', `deprecated: replaced by ${String(current['x-replaced-by'])}, sunset ${after}`, false),
  ];
}

/** Every difference between the released event schemas and the current ones, each judged. */
export function compareEvents(
  released: Record<string, Json>,
  current: Record<string, Json>,
  now: Date = new Date(),
): Finding[] {
  const findings: Finding[] = [];
  for (const [type, before] of Object.entries(released)) {
    const after = current[type];
    if (!after) {
      findings.push(removal(type, before, now));
      continue;
    }
    for (const [key, kind, why] of [
      ['x-topic', 'topic-changed', 'queues subscribe to it on the released topic'],
      ['x-producer', 'producer-changed', 'consumers accept it only from the released producer (`source`)'],
    ] as const) {
      if (before[key] !== after[key]) {
        findings.push({
          subject: type,
          path: '',
          kind,
          detail: `${key.slice(2)} ${String(before[key])} → ${String(after[key])}`,
          breaking: true,
          why,
        });
      }
    }
    findings.push(...deprecationFindings(type, before, after, now));
    for (const change of diffSchemas(schemaOf(before), schemaOf(after))) {
      findings.push({
        subject: type,
        path: change.path,
        kind: change.kind,
        detail: change.detail,
        ...judge(change, 'event'),
      });
    }
  }
  for (const type of Object.keys(current)) {
    if (!released[type])
      findings.push({ subject: type, path: '', kind: 'type-added', detail: 'added', breaking: false });
  }
  return findings;
}
