// The Prometheus alerting rules (deploy/compose/alerts.yml, docs/operations.md
// "Prometheus alerts"): their shape, their unit tests' coverage, and promtool's
// verdict on both. promtool comes from Debian's `prometheus` package; CI
// installs it (.ci/run), so there the promtool checks always run.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createMetrics } from '@hireflow/runtime';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = new URL('../', import.meta.url);
const path = (file: string) => new URL(file, root).pathname;
const read = (file: string) => readFileSync(path(file), 'utf8');

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const rules = (parse(read('deploy/compose/alerts.yml')) as { groups: { rules: Rule[] }[] }).groups.flatMap(
  (g) => g.rules,
);
const alerts = rules.filter((r) => r.alert);

interface RuleTest {
  alert_rule_test?: { alertname: string; eval_time: string; exp_alerts?: unknown[] }[];
}
const unitTests = parse(read('deploy/compose/alerts.test.yml')) as {
  rule_files: string[];
  tests: RuleTest[];
};

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
const anchors = new Set(
  [...read('docs/operations.md').matchAll(/^#+ (.+)$/gm)].map((m) =>
    (m[1] ?? '')
      .toLowerCase()
      .replace(/[^\w\- ]/g, '')
      .replace(/ /g, '-'),
  ),
);

const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' }).status === 0;

describe('Prometheus alerting rules', () => {
  it('covers what an operator must hear of', () => {
    expect(alerts.map((a) => a.alert).sort()).toEqual([
      'HireflowDeadLetters',
      'HireflowEmailFailures',
      'HireflowErrorBudgetFastBurn',
      'HireflowErrorBudgetSlowBurn',
      'HireflowJobWaitingTooLong',
      'HireflowMessagesWaitingTooLong',
      'HireflowOutboxBacklogOld',
      'HireflowProcessDown',
    ]);
  });

  it('gives every alert a for:, a severity, a summary and a runbook section in docs/operations.md', () => {
    for (const alert of alerts) {
      expect(alert.for, alert.alert).toMatch(/^\d+[smhd]$/);
      expect(['page', 'ticket'], alert.alert).toContain(alert.labels?.severity);
      expect(alert.annotations?.summary, alert.alert).toBeTruthy();
      const [file, anchor] = (alert.annotations?.runbook_url ?? '').split('#');
      expect(file, alert.alert).toBe('docs/operations.md');
      expect(anchors, alert.alert).toContain(anchor);
    }
  });

  it('uses only metrics the services export', async () => {
    const metrics = createMetrics('test');
    metrics.exportQueues(true);
    const exported = new Set([...(await metrics.text()).matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]));
    metrics.close();
    const recorded = new Set(rules.flatMap((r) => (r.record ? [r.record] : [])));
    for (const rule of rules) {
      for (const [name] of rule.expr.matchAll(/\bhireflow[:_][\w:]+/g)) {
        if (recorded.has(name)) continue;
        expect(exported, `${rule.alert ?? rule.record}: ${name}`).toContain(
          name.replace(/_(bucket|sum|count)$/, ''),
        );
      }
    }
  });

  it('unit-tests every alert at least once firing and once silent', () => {
    expect(unitTests.rule_files).toEqual(['alerts.yml']);
    const cases = unitTests.tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const alert of alerts) {
      const mine = cases.filter((c) => c.alertname === alert.alert);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length > 0),
        `${alert.alert} never fires`,
      ).toBe(true);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length === 0),
        `${alert.alert} is never silent`,
      ).toBe(true);
    }
  });

  it("is loaded by compose's Prometheus", () => {
    const config = parse(read('deploy/compose/prometheus.yml')) as { rule_files: string[] };
    expect(config.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
    const compose = parse(read('docker-compose.yml'), { merge: true }) as {
      services: { prometheus: { volumes: string[] } };
    };
    expect(compose.services.prometheus.volumes).toContain(
      './deploy/compose/alerts.yml:/etc/prometheus/alerts.yml:ro',
    );
  });

  // Locally without Debian's `prometheus` package there is no promtool to run;
  // CI installs it, so there these never skip.
  describe.skipIf(!promtool && !process.env.CI)('promtool', () => {
    it('accepts the rules (promtool check rules)', () => {
      const out = execFileSync('promtool', ['check', 'rules', path('deploy/compose/alerts.yml')], {
        encoding: 'utf8',
      });
      expect(out).toMatch(/SUCCESS: \d+ rules found/);
    });

    it('passes the unit tests (promtool test rules)', () => {
      const run = spawnSync('promtool', ['test', 'rules', path('deploy/compose/alerts.test.yml')], {
        encoding: 'utf8',
      });
      expect(run.stdout + run.stderr).toContain('SUCCESS');
      expect(run.status, run.stdout + run.stderr).toBe(0);
      // Hours of series at a one-minute evaluation: seconds on an idle machine.
    }, 180_000);
  });
});
