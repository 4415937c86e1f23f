// Entry of the query replica's worker thread (replica.ts). The worker is started without the parent's loader
// flags (tsx's, vitest's), so it registers tsx itself and then loads the TypeScript worker module.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
