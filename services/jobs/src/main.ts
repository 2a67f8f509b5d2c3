import { runService } from '@hireflow/runtime';
import { jobsService } from './service.ts';

await runService(jobsService, process.env);
