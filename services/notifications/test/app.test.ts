import { buildApp } from '@hireflow/notifications';
import { loadConfig } from '@hireflow/notifications/config';
import { serviceAppHarness } from '@hireflow/testing/service';
import { describe } from 'vitest';

describe('notifications buildApp', () => {
  serviceAppHarness({ service: 'notifications', loadConfig, buildApp });
});
