/**
 * core/request-body-stalled and core/request-headers-stalled on the real upload-api dumps
 * (samples/servers/upload-api; what each dump holds: test/rules/servers.test.ts), changed one fact at
 * a time: reads of uploads in flight (no wait time), idle keep-alive connections and a client's own
 * response reads are not counted; ten minutes make an error; with the source, the servers that set no
 * read timeout are pointed at, and a server that sets one is not.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, explainWithSource, readDump, runRules } from '../../src/index.js';
import type { Analysis, AnalyzedGroup } from '../../src/analyze/types.js';
import { editedMain } from '../helpers/edited-source.js';
import { SAMPLES } from '../helpers/paths.js';

const SOURCE = join(SAMPLES, 'servers', 'upload-api');
const DUMPS = join(SOURCE, 'dumps');
const BODY = 'core/request-body-stalled';
const HEADERS = 'core/request-headers-stalled';

async function analysisOf(file: string): Promise<Analysis> {
  const dump = await readDump(join(DUMPS, file));
  return analyze(dump.snapshots[0]);
}

const ruled = (a: Analysis, id: string) => runRules(a).filter((f) => f.ruleId === id);
const readsBody = (g: AnalyzedGroup) => g.frames.some((f) => f.func === 'net/http.(*body).Read') && g.frames.some((f) => f.func === 'net/http.(*connReader).Read');
const readsHeaders = (g: AnalyzedGroup) => g.frames.some((f) => /^net\/textproto\.readMIMEHeader$/.test(f.func));

/** `a` with the groups `pick` selects changed by `change` (the rest as read). */
function edited(a: Analysis, pick: (g: AnalyzedGroup) => boolean, change: (g: AnalyzedGroup) => AnalyzedGroup): Analysis {
  return { ...a, groups: a.groups.map((g) => (pick(g) ? change(g) : g)), waits: undefined };
}

describe('clients that stopped sending', () => {
  it('uploads in flight are no stalled reads: the healthy dump reads bodies in IO wait, without a minute', async () => {
    for (const file of ['healthy.debug2.txt.gz', 'go1.23/healthy.debug2.txt.gz']) {
      const a = await analysisOf(file);
      expect(a.groups.filter((g) => readsBody(g) && g.waitKind === 'io').reduce((n, g) => n + g.count, 0), file).toBeGreaterThan(0);
      expect([...ruled(a, BODY), ...ruled(a, HEADERS)], file).toEqual([]);
    }
  });

  it('debug=1 prints no wait: the stopped uploads are there, and nothing is said of them', async () => {
    const a = await analysisOf('stalled-1m.debug1.txt');
    expect(a.groups.filter(readsBody).reduce((n, g) => n + g.count, 0)).toBeGreaterThanOrEqual(6);
    expect([...ruled(a, BODY), ...ruled(a, HEADERS)]).toEqual([]);
  });

  it('a warning after a minute, an error after ten', async () => {
    const a = await analysisOf('stalled-1m.debug2.txt.gz');
    expect(ruled(a, BODY).map((f) => f.severity)).toEqual(['warning']);
    expect(ruled(a, HEADERS).map((f) => f.severity)).toEqual(['warning']);
    const later = edited(a, (g) => (readsBody(g) || readsHeaders(g)) && (g.wait?.max ?? 0) >= 1, (g) => ({ ...g, wait: { min: 12, max: 12, stamped: g.count } }));
    expect(ruled(later, BODY).map((f) => [f.severity, f.evidence.goroutines])).toEqual([['error', 6]]);
    expect(ruled(later, HEADERS).map((f) => [f.severity, f.evidence.goroutines])).toEqual([['error', 6]]);
  });

  it('an idle keep-alive connection waits for its next request line, not for headers: not counted', async () => {
    const a = await analysisOf('stalled-1m.debug2.txt.gz');
    const idle = edited(a, readsHeaders, (g) => ({ ...g, frames: g.frames.filter((f) => !/^net\/textproto\.(readMIMEHeader|\(\*Reader\)\.(ReadMIMEHeader|readContinuedLineSlice|skipSpace))$/.test(f.func)).map((f) => (f.func === 'bufio.(*Reader).ReadByte' ? { ...f, func: 'net/textproto.(*Reader).ReadLine' } : f)) }));
    expect(ruled(idle, HEADERS)).toEqual([]);
    expect(ruled(idle, BODY)).toHaveLength(1);
  });

  it('over HTTP/2 the stopped uploads wait on their streams\' pipes (a Cond the connection\'s reader signals): named, no "condition variable nobody signals"', async () => {
    for (const file of ['stalled-h2-1m.debug2.txt.gz', 'go1.23/stalled-h2-1m.sigquit.txt.gz']) {
      const a = await analysisOf(file);
      const all = runRules(a);
      expect(all.filter((f) => f.ruleId === BODY).map((f) => [f.severity, f.evidence.goroutines, f.evidence.groups[0].waitKind]), file).toEqual([['warning', 6, 'cond']]);
      expect(all.filter((f) => f.ruleId === 'core/stuck-wait'), file).toEqual([]);
    }
  });

  it("a client reading a response body (through its persistConn) is no server's stalled read", async () => {
    const a = await analysisOf('stalled-1m.debug2.txt.gz');
    const client = edited(a, readsBody, (g) => ({ ...g, frames: g.frames.map((f) => (f.func === 'net/http.(*connReader).Read' ? { ...f, func: 'net/http.(*persistConn).Read' } : f)) }));
    expect(ruled(client, BODY)).toEqual([]);
  });
});

describe('clients that stopped sending, with the source', () => {
  const causes = async (dir: string, id: string) => {
    const a = await analysisOf('stalled-1m.debug2.txt.gz');
    const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: dir });
    return (findings.find((f) => f.ruleId === id)?.causeLocations ?? []).map((c) => [c.kind, c.line, c.confidence]);
  };
  const withSource = (edit: (src: string) => string) => editedMain(SOURCE, edit);

  it('points at both servers the dump runs (the dump does not say which one the reads belong to)', async () => {
    // main.go:97 the API's http.Server{…} (served at 98), main.go:90 the debug server's http.ListenAndServe.
    for (const id of [BODY, HEADERS]) {
      expect(await causes(SOURCE, id)).toEqual([
        ['server-without-read-timeout', 97, 'low'],
        ['server-without-read-timeout', 90, 'low'],
      ]);
    }
  });

  it('over HTTP/2 too: the TLS server (an http.Server{} served by ListenAndServeTLS) is the third suspect', async () => {
    const a = await analysisOf('stalled-h2-1m.debug2.txt.gz');
    const { findings } = await explainWithSource(runRules(a), [a], { sourceDir: SOURCE });
    const got = (findings.find((f) => f.ruleId === BODY)?.causeLocations ?? []).map((c) => c.line).sort((x, y) => x - y);
    expect(got).toEqual([90, 97, 113]);
  });

  it('a server with a ReadTimeout in its literal ends both reads; a ReadHeaderTimeout set after it ends the headers only', async () => {
    const timed = withSource((s) => s.replace('srv := &http.Server{Addr: *addr, Handler: mux}', 'srv := &http.Server{Addr: *addr, Handler: mux, ReadTimeout: time.Minute}'));
    expect(await causes(timed, BODY)).toEqual([['server-without-read-timeout', 90, 'low']]);
    expect(await causes(timed, HEADERS)).toEqual([['server-without-read-timeout', 90, 'low']]);
    // (On the literal's line: the dump's lines stay where they are.)
    const headers = withSource((s) => s.replace('Handler: mux}', 'Handler: mux}; srv.ReadHeaderTimeout = 5 * time.Second'));
    expect((await causes(headers, BODY)).map((c) => c[1])).toEqual([97, 90]);
    expect(await causes(headers, HEADERS)).toEqual([['server-without-read-timeout', 90, 'low']]);
  });
});
