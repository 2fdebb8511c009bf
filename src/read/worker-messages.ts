/**
 * What parallel.ts and its worker threads (worker.ts) send each other, and an error's trip across:
 * an `InputError` is rebuilt on the other side with the same code and message.
 */
import { InputError, type InputErrorCode } from './errors.js';
import type { ReadOptions } from './options.js';
import type { Dump } from '../model/dump.js';
import type { TextPart } from './text.js';

/** Read `input` whole, or bytes [start, end) of it as a later part (chunked.ts). */
export type WorkerRequest = { input: string; opts: ReadOptions; progress: boolean; part?: { start: number; end: number } };

export type SerializedError = { input: true; source: string; code: InputErrorCode; message: string } | { input: false; message: string; stack?: string };
export type WorkerReply =
  | { kind: 'progress'; bytes: number }
  | { kind: 'dump'; dump: Dump }
  | { kind: 'part'; part: TextPart }
  | { kind: 'error'; error: SerializedError };

/** `workerData` that marks a thread as a reader (worker.ts does nothing without it). */
export const WORKER_DATA = { leakscopeReadWorker: true } as const;

export function serialize(e: unknown): SerializedError {
  if (e instanceof InputError) return { input: true, source: e.source, code: e.code, message: e.message };
  if (e instanceof Error) return { input: false, message: e.message, ...(e.stack ? { stack: e.stack } : {}) };
  return { input: false, message: String(e) };
}

export function revive(s: SerializedError): Error {
  if (s.input) {
    const prefix = `${s.source}: `;
    const e = new InputError(s.source, s.code, s.message.startsWith(prefix) ? s.message.slice(prefix.length) : s.message);
    if (e.message !== s.message) Object.defineProperty(e, 'message', { value: s.message });
    return e;
  }
  const e = new Error(s.message);
  if (s.stack) e.stack = s.stack;
  return e;
}
