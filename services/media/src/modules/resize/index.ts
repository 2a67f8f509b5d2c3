export type { ResizeQueue, ResizeTask } from '../uploads/resize-queue.ts';
export { createResizeQueue, enqueueResize, RESIZE_QUEUE, resizeIntent } from '../uploads/resize-queue.ts';
export type { ResizeOptions, ResizeOutcome, ResizeWorkerOptions } from './processor.ts';
export { resizeProcessor, startResizeWorker } from './processor.ts';
export { GAVE_UP_REASON, sweepPendingUploads } from './sweep.ts';
