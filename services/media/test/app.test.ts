import { buildApp } from '@hireflow/media';
import { loadConfig } from '@hireflow/media/config';
import { serviceAppHarness } from '@hireflow/testing/service';
import { describe } from 'vitest';

describe('media buildApp', () => {
  serviceAppHarness({ service: 'media', loadConfig, buildApp });
});
