/**
 * Every option of reading, in one place: what the one path (pipeline.ts) takes, and what the
 * strategies above it (reading one file in parts, several files on worker threads) add.
 */
import type { SourceOptions } from './source.js';
import type { TextReadOptions } from './text.js';

export interface ReadOptions extends SourceOptions, TextReadOptions {
  /** Decompressed bytes at most (gzip bombs); default 4 GiB. */
  maxDecompressedBytes?: number;
  /** Longest line kept; longer lines are cut and reported. Default 1 MiB. */
  maxLineLength?: number;
  /** Protobuf profiles larger than this are refused (they are held whole to decode); default 512 MiB. */
  maxProtobufBytes?: number;
  /**
   * Text read at most without finding the start of a dump (a goroutine header, a profile or race
   * report header…): past it the input is refused as no dump (a device, a binary stream, a huge log).
   * Checked as the chunks arrive (1 MiB reads of a file; one buffer given whole is one chunk).
   * Default 64 MiB (DEFAULT_DUMP_SEARCH_BYTES, text-input.ts).
   */
  maxBytesBeforeDump?: number;
  /** Called with the bytes consumed so far (before decompression is not known: after). */
  onProgress?: (bytes: number) => void;
}

/** Reading with threads: several inputs at once, or one large file in parts (parallel.ts). */
export interface ParallelOptions extends ReadOptions {
  /** Worker threads at most (default: the number of cores). 1 reads in this thread. */
  maxWorkers?: number;
  /** Called with the bytes consumed so far over all inputs. */
  onProgress?: (bytes: number) => void;
  /**
   * Only files of at least this many bytes go to workers (default 4 MiB), and only when two or more
   * do: for small inputs, starting workers and copying Dumps back costs more than reading them here.
   */
  minWorkerBytes?: number;
  /** One file of at least this many bytes is read in parts on several threads (default MIN_CHUNKED_BYTES, chunked.ts). */
  minChunkedBytes?: number;
  /** The compiled script workers run (worker.ts as JavaScript); default: dist/read/worker.js beside the running code. */
  workerScript?: URL;
}
