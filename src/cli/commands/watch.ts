/**
 * `leakscope watch URL`: poll a live `/debug/pprof/goroutine` endpoint every `--every` for `--for`
 * (or until Ctrl-C or SIGTERM), print each count on stderr as it arrives, and end with the trend report.
 * http(s) only, with the readers' timeouts and size cap. The first poll must succeed (exit 2 if not);
 * later failures are warnings and the watch goes on.
 */
import { Command, Option } from 'commander';
import type { Analysis } from '../../analyze/types.js';
import type { Dump } from '../../model/dump.js';
import { InputError } from '../../read/errors.js';
import { fmtDelta, fmtInt, shortSite, siteOf, waitLabel } from '../../report/text.js';
import { emit } from '../emit.js';
import { StoppedBySignal, UsageError } from '../exit-codes.js';
import { checkOutput, note, warn } from '../output.js';
import { addReadOptions, addReportOptions, duration, probability, readOptionsOf, type ReadFlags, type ReportFlags } from '../options.js';

interface Flags extends ReportFlags, ReadFlags {
  every: number;
  for: number;
  alpha?: number;
  timeout?: number;
}

export function watchCommand(): Command {
  const cmd = new Command('watch')
    .description('poll a live /debug/pprof/goroutine endpoint, show counts as they arrive, end with the trend verdict')
    .argument('<url>', 'http(s) URL, e.g. http://localhost:6060/debug/pprof/goroutine?debug=2')
    .addOption(new Option('--every <duration>', 'time between polls (10s, 1m, …)').argParser(duration).default(10_000, '10s'))
    .addOption(new Option('--for <duration>', 'how long to watch (5m, 1h, …); Ctrl-C or SIGTERM stops early').argParser(duration).default(300_000, '5m'))
    .option('--timeout <duration>', 'give up on one poll after this long, from the request to the end of its answer (default: none, but 10s to connect and 30s without a byte)', duration)
    .option('--alpha <p>', 'significance level of the growth test (default 0.05)', probability);
  addReportOptions(cmd);
  addReadOptions(cmd, { timeout: false });
  return cmd.action(async (url: string, flags: Flags) => {
    const { analyze, escalateGrowth, findingsFor, readDump, reportWarnings, setup, trend, trendFindings } = await import('../actions.js');
    if (!/^https?:\/\//i.test(url)) throw new UsageError(`${url}: watch needs an http:// or https:// URL`);
    checkOutput(flags.output, []);
    const s = setup({ level: flags.level });
    const samples: { analysis: Analysis; time: number; dump: Dump }[] = [];
    let stopped: 'SIGINT' | 'SIGTERM' | undefined;
    let wake: (() => void) | undefined;
    // Ctrl-C, or SIGTERM (`timeout 10m leakscope watch …`, a CI job or pod stopped): a poll under way
    // is stopped (a large dump can take its whole timeout to come), and the polls so far are judged
    // and reported. A second signal ends the process as the signal does.
    let polling: AbortController | undefined;
    const onStop = (signal: 'SIGINT' | 'SIGTERM') => {
      stopped = signal;
      polling?.abort();
      wake?.();
    };
    process.once('SIGINT', onStop);
    process.once('SIGTERM', onStop);
    const start = Date.now();
    try {
      for (let k = 0; !stopped; k++) {
        const pollAt = Date.now();
        // --timeout bounds the whole poll: a body that trickles in never goes silent for the read timeout.
        const poll = (polling = new AbortController());
        const deadline = flags.timeout === undefined ? undefined : setTimeout(() => poll.abort(), flags.timeout);
        try {
          const dump = await readDump(url, { ...readOptionsOf(flags), signal: poll.signal });
          const snap = dump.snapshots[0];
          if (!snap) throw new UsageError(`${url}: the response holds no goroutine profile`);
          // A download that broke off holds lower bounds of the counts: in the series it would read as
          // a dip (or, first, as a rise after it). It counts as a failed poll.
          const cut = dump.warnings.find((w) => w.code === 'input-cut');
          if (cut) throw new UsageError(`${url}: ${cut.message}; a poll cut short is left out of the series`);
          reportWarnings(dump);
          const analysis = analyze(snap, s.analyzeOptions);
          const prev = samples[samples.length - 1]?.analysis.total;
          samples.push({ analysis, time: pollAt, dump });
          note(progressLine(pollAt - start, analysis, prev));
        } catch (e) {
          if (stopped) {
            if (samples.length === 0) throw new StoppedBySignal(`${url}: stopped by ${stopped} before the first poll answered: nothing to report`, stopped);
            note(`poll ${k + 1} stopped by ${stopped} before it answered: left out of the series`);
            break;
          }
          // The deadline's abort (its reason, an AbortError), not an error of a poll that ended anyway.
          const timedOut = poll.signal.aborted && e === poll.signal.reason;
          const failure = timedOut ? new InputError(url, 'network', `no whole answer within ${msText(flags.timeout!)} (--timeout)`) : e;
          if (samples.length === 0) throw failure;
          warn(`poll ${k + 1} failed: ${(failure as Error).message}`);
        } finally {
          clearTimeout(deadline);
        }
        const next = start + (k + 1) * flags.every;
        if (next - start > flags.for || stopped) break;
        await new Promise<void>((done) => {
          const timer = setTimeout(done, Math.max(0, next - Date.now()));
          wake = () => {
            clearTimeout(timer);
            done();
          };
        });
      }
    } finally {
      process.removeListener('SIGINT', onStop);
      process.removeListener('SIGTERM', onStop);
    }
    const t = trend(samples.map(({ analysis, time }) => ({ analysis, time })), flags.alpha !== undefined ? { alpha: flags.alpha } : {});
    const last = samples[samples.length - 1];
    const findings = [...escalateGrowth(findingsFor([{ dump: last.dump, analyses: [last.analysis] }], s), samples.map((x) => x.analysis)), ...trendFindings(t)];
    await emit({ command: 'watch', analyses: samples.map((x) => x.analysis), findings, trend: t }, flags);
  });
}

/** 700 → `700 ms`, 10000 → `10 s`. */
function msText(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function progressLine(elapsedMs: number, a: Analysis, prev: number | undefined): string {
  const top = a.groups[0];
  const change = prev === undefined ? '' : ` (${fmtDelta(a.total - prev)})`;
  const topText = top ? `; top: ${fmtInt(top.count)} ${waitLabel(top)} at ${shortSite(siteOf(top)) || top.id}` : '';
  return `[+${Math.round(elapsedMs / 1000)}s] ${fmtInt(a.total)} goroutines${change}${topText}`;
}
