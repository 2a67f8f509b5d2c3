import { runService } from '@hireflow/runtime';
import { mediaService } from './service.ts';

await runService(mediaService, process.env);
