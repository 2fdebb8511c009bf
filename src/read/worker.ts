/**
 * A reading worker thread's entry point (parallel.ts starts it): each request is an input read
 * whole through the one path (pipeline.ts) or a part of a large file (chunked.ts); the Dump, the part
 * or the error is posted back, with progress every 4 MB.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { readPart } from './chunked.js';
import { readInput } from './pipeline.js';
import { ReadCache } from './read-cache.js';
import type { TextPart } from './text.js';
import { WORKER_DATA, serialize, type WorkerReply, type WorkerRequest } from './worker-messages.js';

function partBuffers(part: TextPart): ArrayBuffer[] {
  return part.parts.flatMap((p) => [p.ids, p.builder.ids, p.builder.idGroups, p.builder.linkChildren, p.builder.linkCreators].map((a) => a.buffer as ArrayBuffer));
}

const marked = (workerData as Partial<typeof WORKER_DATA> | null)?.leakscopeReadWorker === true;
if (!isMainThread && parentPort && marked) {
  const port = parentPort;
  // The whole inputs this worker reads, one after another, share what their reader learns (read-cache.ts).
  const cache = new ReadCache();
  port.on('message', (m: WorkerRequest) => {
    let last = 0;
    const onProgress = m.progress
      ? (bytes: number): void => {
          // Every 4 MB: a message per chunk would cost more than it tells.
          if (bytes - last >= 4 << 20) {
            last = bytes;
            port.postMessage({ kind: 'progress', bytes } satisfies WorkerReply);
          }
        }
      : undefined;
    const failed = (e: unknown): void => port.postMessage({ kind: 'error', error: serialize(e) } satisfies WorkerReply);
    if (m.part) {
      readPart(m.input, m.part.start, m.part.end, m.opts, onProgress).then(
        // The id arrays (a few MB for a large part) move to the other thread instead of being copied.
        (part) => port.postMessage({ kind: 'part', part } satisfies WorkerReply, partBuffers(part)),
        failed,
      );
      return;
    }
    readInput(m.input, { ...m.opts, ...(onProgress ? { onProgress } : {}) }, cache).then((dump) => port.postMessage({ kind: 'dump', dump } satisfies WorkerReply), failed);
  });
}
