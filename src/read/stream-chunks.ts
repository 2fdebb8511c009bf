import type { Readable } from 'node:stream';

/**
 * Every chunk `s` gives, in order, then its error if it fails. A stream's own async iterator stops
 * handing out chunks once the stream is destroyed, and zlib destroys itself at corrupt data: the
 * chunks it had inflated before, still buffered, were given or dropped depending on timing. `read()`
 * still hands them out, so how much of a broken gzip is read depends on its bytes alone. Back
 * pressure is the stream's own: nothing is read ahead of the consumer past its buffer.
 */
export async function* chunksUntilError(s: Readable): AsyncGenerator<Buffer> {
  let failed = false;
  let error: unknown;
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const onError = (e: unknown): void => {
    failed = true;
    error = e;
    notify();
  };
  const onEnd = (): void => {
    ended = true;
    notify();
  };
  s.on('readable', notify);
  s.on('error', onError);
  s.on('end', onEnd);
  s.on('close', onEnd);
  try {
    for (;;) {
      const b = s.read() as Buffer | null;
      if (b !== null) {
        yield b;
        continue;
      }
      if (failed) throw error;
      if (ended) return;
      await new Promise<void>((r) => {
        wake = r;
      });
    }
  } finally {
    s.off('readable', notify);
    s.off('error', onError);
    s.off('end', onEnd);
    s.off('close', onEnd);
  }
}
