/**
 * The normalized signature is equal for one goroutine captured as debug=0, debug=1 and debug=2.
 * Stacks quoted from one Go 1.19.8 process that wrote all three (a shrunken apiproxy leak:
 * returnErr inlined into an errgroup-like closure, the parent in WaitGroup.Wait).
 */
import { describe, expect, it } from 'vitest';
import { keyFrames, signature, signatureOfFrames } from '../../src/analyze/signature.js';
import { frames } from './fixtures.js';

const sender = {
  debug0: `
    runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
    runtime.chansend /usr/lib/go-1.19/src/runtime/chan.go:259
    runtime.chansend1 /usr/lib/go-1.19/src/runtime/chan.go:145
    main.returnErr /tmp/lnexp/main.go:14 (inl)
    main.listAndWatch.func1 /tmp/lnexp/main.go:33
    main.(*group).Go.func1 /tmp/lnexp/main.go:23`,
  debug1: `
    main.returnErr /tmp/lnexp/main.go:14
    main.listAndWatch.func1 /tmp/lnexp/main.go:33
    main.(*group).Go.func1 /tmp/lnexp/main.go:23`,
  debug2: `
    main.returnErr /tmp/lnexp/main.go:14 (inl)
    main.listAndWatch.func1 /tmp/lnexp/main.go:33
    main.(*group).Go.func1 /tmp/lnexp/main.go:23`,
};

const waiter = {
  debug0: `
    runtime.gopark /usr/lib/go-1.19/src/runtime/proc.go:363
    runtime.goparkunlock /usr/lib/go-1.19/src/runtime/proc.go:369 (inl)
    runtime.semacquire1 /usr/lib/go-1.19/src/runtime/sema.go:150
    sync.runtime_Semacquire /usr/lib/go-1.19/src/runtime/sema.go:62
    sync.(*WaitGroup).Wait /usr/lib/go-1.19/src/sync/waitgroup.go:139
    main.(*group).Wait /tmp/lnexp/main.go:27 (inl)
    main.listAndWatch /tmp/lnexp/main.go:37
    main.watch.func1 /tmp/lnexp/main.go:43`,
  debug1: `
    sync.runtime_Semacquire /usr/lib/go-1.19/src/runtime/sema.go:62
    sync.(*WaitGroup).Wait /usr/lib/go-1.19/src/sync/waitgroup.go:139
    main.(*group).Wait /tmp/lnexp/main.go:27
    main.listAndWatch /tmp/lnexp/main.go:37
    main.watch.func1 /tmp/lnexp/main.go:43`,
  debug2: `
    sync.runtime_Semacquire /usr/lib/go-1.19/src/runtime/sema.go:62
    sync.(*WaitGroup).Wait /usr/lib/go-1.19/src/sync/waitgroup.go:139
    main.(*group).Wait /tmp/lnexp/main.go:27 (inl)
    main.listAndWatch /tmp/lnexp/main.go:37
    main.watch.func1 /tmp/lnexp/main.go:43`,
};

// The main goroutine: debug=0/1 print runtime.main under main.main, debug=2 does not.
const mainG = {
  debug0: `
    time.Sleep /usr/local/go/src/runtime/time.go:363
    main.main /home/a/main.go:34
    runtime.main /usr/local/go/src/runtime/proc.go:285`,
  debug2: `
    time.Sleep /usr/local/go/src/runtime/time.go:363
    main.main /home/a/main.go:34`,
};

describe('signature', () => {
  it.each([['sender', sender], ['waiter', waiter]])('%s: debug=0/1/2 give one key at both levels', (_n, s) => {
    for (const level of ['exact', 'functions'] as const) {
      const k0 = signature({ frames: frames(s.debug0) }, level);
      expect(signature({ frames: frames(s.debug1) }, level)).toBe(k0);
      expect(signature({ frames: frames(s.debug2) }, level)).toBe(k0);
    }
  });

  it('drops trailing unexported runtime frames (runtime.main, runtime.goexit)', () => {
    expect(signatureOfFrames(frames(mainG.debug0), 'exact')).toBe(signatureOfFrames(frames(mainG.debug2), 'exact'));
    expect(keyFrames(frames(`main.f /a.go:1\nruntime.goexit /usr/local/go/src/runtime/asm_amd64.s:1594`)).map((f) => f.func)).toEqual(['main.f']);
  });

  it('keeps mid-stack frames every format prints: exported runtime functions and runtime.gopanic', () => {
    const kept = keyFrames(frames(`
      runtime.gopark /r/proc.go:1
      main.cleanup /a.go:9
      runtime.Goexit /r/panic.go:2
      runtime.gopanic /r/panic.go:3
      main.f /a.go:3`));
    expect(kept.map((f) => f.func)).toEqual(['main.cleanup', 'runtime.Goexit', 'runtime.gopanic', 'main.f']);
  });

  it('keeps a stack made only of runtime frames (runtime-owned goroutines stay apart)', () => {
    const a = signatureOfFrames(frames('runtime.gopark /r/proc.go:363\nruntime.forcegchelper /r/proc.go:302'), 'exact');
    const b = signatureOfFrames(frames('runtime.gopark /r/proc.go:363\nruntime.bgsweep /r/mgcsweep.go:278'), 'exact');
    expect(a).not.toBe(b);
    expect(a).toContain('runtime.forcegchelper');
  });

  it('normalizes Windows separators and ignores the inlined mark; `functions` ignores lines', () => {
    const a = signatureOfFrames(frames('main.f C:\\Users\\m\\app\\main.go:10 (inl)'), 'exact');
    expect(a).toBe(signatureOfFrames(frames('main.f C:/Users/m/app/main.go:10'), 'exact'));
    expect(signatureOfFrames(frames('main.f /a.go:10'), 'functions')).toBe(signatureOfFrames(frames('main.f /a.go:99'), 'functions'));
    expect(signatureOfFrames(frames('main.f /a.go:10'), 'exact')).not.toBe(signatureOfFrames(frames('main.f /a.go:99'), 'exact'));
  });
});
