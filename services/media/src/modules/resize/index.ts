export type { ResizeQueue, ResizeTask } from '../uploads/resize-queue.ts';
export { enqueueResize, RESIZE_QUEUE, resizeIntent, resizeTaskOptions } from '../uploads/resize-queue.ts';
export type { ResizeOptions, ResizeOutcome, ResizeWorkerOptions } from './processor.ts';
export { resizeProcessor, startResizeWorker } from './processor.ts';
export { GAVE_UP_REASON, sweepPendingUploads } from './sweep.ts';
