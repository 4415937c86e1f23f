// The query replica's worker thread (replica.ts): a second instance of the canister's module that only runs
// non-replicated queries. Messages from the leader, in order: `reset` (start over from a whole state), `sync`
// (what committed since), `query` (run one, answer `reply`). An error outside the wasm (a host bug) ends the
// worker; the leader then restarts it from a reset or runs the queries itself.
import { parentPort } from 'node:worker_threads';
import { ReplicaFollower } from './follower.js';
import type { ReplicaQuery, ReplicaReset, ReplicaSync, WorkerMessage } from './replica.js';

const port = parentPort!;
let follower: ReplicaFollower | undefined;

// Stable pages arrive as Uint8Array views on the leader's SharedArrayBuffers; StableMemory works on Buffers.
const asBuffers = (pages: readonly [number, Uint8Array][]): [number, Buffer][] => pages.map(([i, p]) => [i, Buffer.from(p.buffer, p.byteOffset, p.byteLength)]);

// A message that cannot be received would leave its query unanswered: end the worker instead (it is replaced).
port.on('messageerror', (e) => {
  throw e;
});

port.on('message', (m: WorkerMessage) => {
  if (m.t === 'reset') {
    const r: ReplicaReset = { ...m.reset, stable: asBuffers(m.reset.stable) };
    if (follower === undefined) {
      follower = new ReplicaFollower(r, (text) => port.postMessage({ t: 'print', text }));
      port.postMessage({ t: 'ready' });
    } else follower.load(r);
  } else if (m.t === 'sync') {
    const d: ReplicaSync = { ...m.sync, stable: asBuffers(m.sync.stable) };
    follower!.apply(d);
  } else {
    // A trap is an answer; an exception here is the host failing around the wasm: it ends the worker, and
    // the leader answers this query with a transient reject and starts a new worker from a reset.
    const q: ReplicaQuery = m.query;
    port.postMessage({ t: 'reply', id: m.id, answer: follower!.query(q) });
  }
});
