import { buildApp } from '@hireflow/matching';
import { loadConfig } from '@hireflow/matching/config';
import { serviceAppHarness } from '@hireflow/testing/service';
import { describe } from 'vitest';

describe('matching buildApp', () => {
  serviceAppHarness({ service: 'matching', loadConfig, buildApp });
});
