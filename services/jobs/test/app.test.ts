import { buildApp } from '@hireflow/jobs';
import { loadConfig } from '@hireflow/jobs/config';
import { serviceAppHarness } from '@hireflow/testing/service';
import { describe } from 'vitest';

describe('jobs buildApp', () => {
  serviceAppHarness({ service: 'jobs', loadConfig, buildApp });
});
