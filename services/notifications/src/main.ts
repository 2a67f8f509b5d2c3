import { runService } from '@hireflow/runtime';
import { notificationsService } from './service.ts';

await runService(notificationsService, process.env);
