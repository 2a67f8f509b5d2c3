export type { ResizeOptions, ResizeOutcome, ResizeWorkerOptions } from './processor.ts';
export { resizeProcessor, startResizeWorker } from './processor.ts';
export type { ResizeQueue, ResizeTask } from './queue.ts';
export { createResizeQueue, enqueueResize, RESIZE_QUEUE, resizeIntent } from './queue.ts';
export { GAVE_UP_REASON, sweepPendingUploads } from './sweep.ts';
