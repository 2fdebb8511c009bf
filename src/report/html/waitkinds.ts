/** Plain-language names of wait kinds, for readers who do not read stack traces. */
import type { WaitKind } from '../../model/dump.js';

export interface WaitKindInfo {
  /** Short label used in tables and charts. */
  readonly label: string;
  /** What it means, in one sentence. */
  readonly meaning: string;
}

export const WAIT_KIND_INFO: Readonly<Record<WaitKind, WaitKindInfo>> = {
  'chan-send': { label: 'chan send', meaning: 'Waiting to send on a channel until some goroutine receives.' },
  'chan-receive': { label: 'chan receive', meaning: 'Waiting to receive from a channel until some goroutine sends or closes it.' },
  select: { label: 'select', meaning: 'Waiting in a select until one of its channels is ready.' },
  'blocked-forever': { label: 'blocked forever', meaning: 'Parked on a nil channel or an empty select: nothing can ever wake it.' },
  mutex: { label: 'mutex', meaning: 'Waiting to lock a sync.Mutex held by another goroutine.' },
  rwmutex: { label: 'rwmutex', meaning: 'Waiting to lock a sync.RWMutex held by another goroutine.' },
  waitgroup: { label: 'waitgroup', meaning: 'Waiting for a WaitGroup (or errgroup) whose other goroutines have not finished.' },
  cond: { label: 'cond', meaning: 'Waiting on a sync.Cond until it is signalled.' },
  semaphore: { label: 'semaphore', meaning: 'Waiting to acquire a semaphore.' },
  io: { label: 'I/O', meaning: 'Waiting for network or file I/O.' },
  sleep: { label: 'sleep', meaning: 'Sleeping (time.Sleep or a timer).' },
  syscall: { label: 'syscall', meaning: 'Inside a system call.' },
  running: { label: 'running', meaning: 'Running on a CPU when the dump was taken.' },
  runnable: { label: 'runnable', meaning: 'Ready to run, waiting for a CPU.' },
  runtime: { label: 'runtime', meaning: 'A goroutine the Go runtime owns (GC, finalizers, …).' },
  unknown: { label: 'unknown', meaning: 'The dump format does not say what it waits on.' },
};

export function waitLabel(kind: WaitKind): string {
  return WAIT_KIND_INFO[kind]?.label ?? kind;
}
