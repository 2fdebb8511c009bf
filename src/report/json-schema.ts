/**
 * JSON Schema (draft-07) of `--format json`, schemaVersion 1. Additive changes (a new optional field)
 * keep the version; removing or changing the meaning of a field raises it. Tests validate every JSON
 * output against this schema with ajv; docs/cli.md describes the fields.
 */
import { WAIT_KINDS } from '../model/dump.js';

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const nat = { type: 'integer', minimum: 0 } as const;
const num = { type: 'number' } as const;
const bool = { type: 'boolean' } as const;
const ratio = { type: 'number', minimum: 0, maximum: 1 } as const;
const strings = { type: 'array', items: str } as const;
const ints = { type: 'array', items: int } as const;
const severity = { enum: ['error', 'warning', 'info'] } as const;
const waitKind = { enum: [...WAIT_KINDS] } as const;
const verdict = { enum: ['growing', 'rising-inconclusive', 'bounded', 'stable', 'shrinking', 'insufficient-data'] } as const;
/** The trend state of a process (and of the fleet's rows). */
const processVerdict = { enum: ['growing', 'rising-inconclusive', 'stable', 'insufficient-data'] } as const;
/** Snapshots a rise would need to be confirmed; null when none up to 1,000 would. */
const needed = { type: ['integer', 'null'], minimum: 3 } as const;
const ref = (name: string) => ({ $ref: `#/definitions/${name}` });
const arrayOf = (name: string) => ({ type: 'array', items: ref(name) });

/** An object with exactly these properties, the `required` ones always present. */
function object(properties: Record<string, unknown>, required: string[]): Record<string, unknown> {
  return { type: 'object', additionalProperties: false, required, properties };
}

const seriesProps = {
  verdict,
  counts: { type: 'array', items: nat },
  first: nat,
  last: nat,
  min: nat,
  max: nat,
  perMinute: { type: ['number', 'null'] },
  perSnapshot: num,
  mannKendall: object(
    { n: nat, s: int, tau: num, pIncreasing: ratio, pDecreasing: ratio, exact: bool },
    ['n', 's', 'tau', 'pIncreasing', 'pDecreasing', 'exact'],
  ),
  pAdjusted: ratio,
  material: bool,
  needed,
  sparkline: str,
};
const seriesRequired = Object.keys(seriesProps).filter((k) => k !== 'needed');

export const reportJsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://leakscope.dev/schema/report-v1.json',
  title: 'leakscope report (schemaVersion 1)',
  ...object(
    {
      // 2: a report over several processes, with `fleet`; 1: everything else.
      schemaVersion: { enum: [1, 2] },
      tool: object({ name: { const: 'leakscope' }, version: str }, ['name', 'version']),
      command: { enum: ['inspect', 'diff', 'trend', 'check', 'watch', 'report'] },
      snapshots: arrayOf('snapshot'),
      findings: arrayOf('finding'),
      races: arrayOf('race'),
      // Inputs that were go tool pprof text listings (their groups exact, rebuilt from edges, or inferred).
      aggregates: {
        type: 'array',
        items: object(
          { source: str, index: nat, kind: { enum: ['top', 'traces', 'raw', 'tree'] }, groups: { enum: ['exact', 'edges', 'inferred'] } },
          ['source', 'index', 'kind', 'groups'],
        ),
      },
      diff: ref('diff'),
      trend: ref('trend'),
      gate: ref('gate'),
      fleet: ref('fleet'),
    },
    ['schemaVersion', 'tool', 'command', 'snapshots', 'findings', 'races'],
  ),
  definitions: {
    fleet: object(
      {
        counts: object({ leaking: nat, suspect: nat, healthy: nat }, ['leaking', 'suspect', 'healthy']),
        processes: {
          type: 'array',
          items: object(
            {
              name: str, family: str, status: { enum: ['leaking', 'suspect', 'healthy'] }, snapshots: nat, first: nat, last: nat, verdict: processVerdict, needed,
              perHour: { type: ['number', 'null'] }, findings: nat, topFinding: object({ ruleId: str, severity: str, title: str }, ['ruleId', 'severity', 'title']), latest: str,
            },
            ['name', 'family', 'status', 'snapshots', 'first', 'last', 'verdict', 'perHour', 'findings', 'latest'],
          ),
        },
        findings: {
          type: 'array',
          items: object(
            {
              ruleId: str, severity: str, title: str, file: str, line: nat, of: nat, family: str, summary: str,
              processes: { type: 'array', items: object({ name: str, perHour: { type: ['number', 'null'] } }, ['name', 'perHour']) },
            },
            ['ruleId', 'severity', 'title', 'of', 'family', 'summary', 'processes'],
          ),
        },
        entries: object(
          { entries: nat, dumps: nat, otherProfiles: nat, logsWithoutDump: nat, otherFiles: nat, unreadable: nat, corrupt: nat, cut: nat, stopped: nat },
          ['entries', 'dumps', 'otherProfiles', 'logsWithoutDump', 'otherFiles', 'unreadable', 'corrupt', 'cut', 'stopped'],
        ),
      },
      ['counts', 'processes', 'findings'],
    ),
    frame: object(
      { func: str, pkg: str, file: str, line: nat, inlined: bool, origin: { enum: ['runtime', 'stdlib', 'dependency', 'user'] } },
      ['func', 'pkg', 'file', 'line', 'inlined'],
    ),
    snapshot: object(
      {
        source: str,
        index: nat,
        format: { enum: ['pprof', 'debug1', 'debug2'] },
        profile: { enum: ['goroutine', 'goroutineleak'] },
        capturedAt: str,
        headline: object({ kind: str, message: str, lines: strings }, ['kind', 'message', 'lines']),
        context: object(
          {
            kind: { enum: ['test-timeout', 'leak-report', 'deadlock', 'synctest-deadlock', 'signal', 'crash', 'profile', 'excerpt'] },
            summary: str,
            checker: str,
            timeoutSeconds: { type: 'number', minimum: 0 },
            tests: strings,
            excerpt: strings,
          },
          ['kind', 'summary'],
        ),
        programModules: {
          type: 'array',
          items: object({ module: str, why: str }, ['module', 'why']),
        },
        listing: object(
          {
            kind: { enum: ['top', 'traces', 'raw', 'tree'] },
            groups: { enum: ['exact', 'edges', 'inferred'] },
            header: bool,
            lines: bool,
            droppedNodes: nat,
            droppedBelow: { type: 'number', minimum: 0 },
            program: str,
          },
          ['kind', 'groups', 'header', 'lines'],
        ),
        total: nat,
        declaredTotal: nat,
        truncated: bool,
        level: { enum: ['exact', 'functions'] },
        groupCount: nat,
        byWaitKind: { type: 'object', propertyNames: waitKind, additionalProperties: nat },
        groups: arrayOf('group'),
        links: {
          type: 'array',
          items: object({ child: str, parent: str, count: nat, via: { enum: ['creator-id', 'shared-frames'] } }, ['child', 'parent', 'count', 'via']),
        },
        warnings: {
          type: 'array',
          items: object({ severity: { enum: ['warning', 'info'] }, code: str, message: str, line: nat }, ['severity', 'code', 'message']),
        },
      },
      ['source', 'index', 'format', 'profile', 'total', 'truncated', 'level', 'groupCount', 'byWaitKind', 'groups', 'links', 'warnings'],
    ),
    group: object(
      {
        id: str,
        key: str,
        count: nat,
        share: ratio,
        waitKind,
        states: strings,
        wait: object({ min: nat, max: nat, stamped: nat }, ['min', 'max', 'stamped']),
        blockingSite: ref('frame'),
        frames: arrayOf('frame'),
        elidedFrames: { type: 'integer', minimum: -1 },
        creator: object({ func: str, pkg: str, file: str, line: nat, goroutineIds: ints }, ['func', 'pkg', 'file', 'line', 'goroutineIds']),
        labels: { type: 'object', additionalProperties: str },
        labelSets: nat,
        goroutineIds: ints,
        flags: { type: 'object', additionalProperties: { type: ['boolean', 'integer'] } },
        partial: bool,
      },
      ['id', 'key', 'count', 'share', 'waitKind', 'states', 'frames', 'elidedFrames', 'labels', 'labelSets', 'goroutineIds', 'flags', 'partial'],
    ),
    finding: object(
      {
        ruleId: str,
        severity,
        category: { enum: ['leak', 'contention', 'deadlock', 'crash', 'race', 'resource', 'info'] },
        confidence: { enum: ['certain', 'high', 'medium', 'low'] },
        pack: str,
        title: str,
        explanation: str,
        cause: str,
        fix: str,
        location: object({ func: str, file: str, line: nat }, ['func', 'file', 'line']),
        causeLocations: {
          type: 'array',
          items: object(
            { file: str, line: nat, excerpt: str, message: str, confidence: { enum: ['high', 'medium', 'low'] }, kind: str, function: str },
            ['file', 'line', 'message', 'confidence'],
          ),
        },
        snapshot: object({ source: str, index: nat }, ['source', 'index']),
        evidence: object(
          {
            goroutines: nat,
            groups: {
              type: 'array',
              items: object(
                {
                  id: str,
                  role: { enum: ['root', 'consequence', 'related'] },
                  count: nat,
                  share: ratio,
                  waitKind,
                  state: str,
                  site: object({ func: str, file: str, line: nat }, ['func', 'file', 'line']),
                  wait: object({ min: nat, max: nat }, ['min', 'max']),
                },
                ['id', 'role', 'count', 'share', 'waitKind', 'state'],
              ),
            },
            facts: strings,
            stack: arrayOf('frame'),
          },
          ['goroutines', 'groups', 'facts', 'stack'],
        ),
      },
      ['ruleId', 'severity', 'title', 'explanation', 'cause', 'fix', 'snapshot', 'evidence'],
    ),
    race: object(
      {
        source: str,
        line: nat,
        accesses: {
          type: 'array',
          minItems: 2,
          maxItems: 2,
          items: object(
            { op: { enum: ['read', 'write'] }, previous: bool, address: str, goroutineId: nat, frames: arrayOf('frame') },
            ['op', 'previous', 'address', 'goroutineId', 'frames'],
          ),
        },
        goroutines: { type: 'array', items: object({ id: nat, status: str, createdAt: arrayOf('frame') }, ['id', 'status', 'createdAt']) },
      },
      ['source', 'accesses', 'goroutines'],
    ),
    snapshotRef: object({ source: str, index: nat, total: nat, capturedAt: str }, ['source', 'index', 'total']),
    diff: object(
      {
        level: { enum: ['exact', 'functions'] },
        before: ref('snapshotRef'),
        after: ref('snapshotRef'),
        totalDelta: int,
        totalGrowth: { type: ['number', 'null'] },
        newGroups: nat,
        vanishedGroups: nat,
        groups: {
          type: 'array',
          items: object(
            {
              id: str,
              key: str,
              change: { enum: ['new', 'vanished', 'grown', 'shrunk', 'unchanged'] },
              before: nat,
              after: nat,
              delta: int,
              growth: { type: ['number', 'null'] },
              waitKind,
              blockingSite: ref('frame'),
            },
            ['id', 'key', 'change', 'before', 'after', 'delta', 'growth', 'waitKind'],
          ),
        },
      },
      ['level', 'before', 'after', 'totalDelta', 'totalGrowth', 'newGroups', 'vanishedGroups', 'groups'],
    ),
    trend: object(
      {
        level: { enum: ['exact', 'functions'] },
        alpha: ratio,
        verdict: processVerdict,
        needed,
        leaks: nat,
        rising: nat,
        family: nat,
        durationMs: num,
        points: {
          type: 'array',
          items: object({ source: str, index: nat, time: num, capturedAt: str, total: nat }, ['source', 'index', 'time', 'total']),
        },
        total: object(seriesProps, seriesRequired),
        groups: {
          type: 'array',
          items: object({ id: str, key: str, waitKind, blockingSite: ref('frame'), ...seriesProps }, ['id', 'key', 'waitKind', ...seriesRequired]),
        },
      },
      ['level', 'alpha', 'verdict', 'leaks', 'rising', 'family', 'durationMs', 'points', 'total', 'groups'],
    ),
    gate: object(
      {
        passed: bool,
        failOn: severity,
        limits: {
          type: 'array',
          items: object(
            {
              name: { enum: ['max-total', 'max-group', 'max-growth', 'max-group-growth', 'max-skipped', 'steady-growth', 'findings'] },
              limit: { type: ['number', 'string'] },
              actual: num,
              passed: bool,
              message: str,
              subject: object({ groupId: str, func: str, file: str, line: nat, source: str }, ['groupId']),
            },
            ['name', 'limit', 'actual', 'passed', 'message'],
          ),
        },
      },
      ['passed', 'failOn', 'limits'],
    ),
  },
} as const;
