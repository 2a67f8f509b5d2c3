import { runService } from '@hireflow/runtime';
import { matchingService } from './service.ts';

await runService(matchingService, process.env);
