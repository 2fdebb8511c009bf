/**
 * Where a frame's code comes from (runtime, standard library, a dependency, the user's own code), and
 * from that the blocking site: the frame a person should look at first.
 *
 * Decided from the package import path first, the file path second: the path says the most about the
 * standard library (`sync.runtime_Semacquire` lives in `runtime/sema.go` but is package sync), while the
 * file tells a dependency from the user's code (module cache `…/pkg/mod/…@v1.2.3/`, `-trimpath`
 * `…@v1.2.3/`, `vendor/`).
 */
import type { Frame } from '../model/dump.js';
import { FrameSlots } from './frame-slots.js';
import { isWrapperFrame } from './signature.js';
import type { AnalyzeOptions, FrameOrigin, SiteFrame } from './types.js';

/**
 * First elements of standard-library import paths (Go 1.0 … 1.25). A package whose first path element
 * has no dot but is not listed here belongs to a module with a dot-less path (`go mod init myapp`,
 * `distributed-kv/consensus`): user code, not the standard library.
 */
export const STDLIB_ROOTS: ReadonlySet<string> = new Set([
  'archive', 'arena', 'bufio', 'builtin', 'bytes', 'cmd', 'cmp', 'compress', 'container', 'context',
  'crypto', 'database', 'debug', 'embed', 'encoding', 'errors', 'expvar', 'flag', 'fmt', 'go', 'hash',
  'html', 'image', 'index', 'internal', 'io', 'iter', 'log', 'maps', 'math', 'mime', 'net', 'os', 'path',
  'plugin', 'reflect', 'regexp', 'runtime', 'slices', 'sort', 'strconv', 'strings', 'structs', 'sync',
  'syscall', 'testing', 'text', 'time', 'unicode', 'unique', 'unsafe', 'vendor', 'weak',
]);

/**
 * Import-path prefixes of widely used libraries: frames under them are `dependency` even when the file
 * path does not show a module cache (a `replace` to a local copy, a vendored monorepo, a stripped
 * path). A prefix matches the path itself and anything below it.
 */
export const KNOWN_DEPENDENCIES: readonly string[] = [
  'golang.org/x/', 'google.golang.org/', 'cloud.google.com/go', 'k8s.io/', 'sigs.k8s.io/',
  'go.uber.org/', 'go.opentelemetry.io/', 'go.etcd.io/', 'go.mongodb.org/', 'gopkg.in/',
  'github.com/sirupsen/logrus', 'github.com/golang/protobuf', 'github.com/gogo/protobuf',
  'github.com/grpc-ecosystem/', 'github.com/prometheus/', 'github.com/gorilla/', 'github.com/gin-gonic/',
  'github.com/labstack/echo', 'github.com/valyala/fasthttp', 'github.com/go-chi/chi',
  'github.com/redis/go-redis', 'github.com/go-redis/redis', 'github.com/gomodule/redigo', 'github.com/garyburd/redigo',
  'github.com/jackc/pgx', 'github.com/jackc/puddle', 'github.com/golang/groupcache', 'github.com/lib/pq',
  'github.com/go-sql-driver/mysql', 'github.com/aws/aws-sdk-go', 'github.com/Azure/azure-sdk-for-go',
  'github.com/hashicorp/', 'github.com/nats-io/', 'github.com/IBM/sarama', 'github.com/Shopify/sarama',
  'github.com/segmentio/kafka-go', 'github.com/spf13/', 'github.com/stretchr/testify',
  'github.com/json-iterator/go', 'github.com/rs/zerolog', 'github.com/patrickmn/go-cache',
  'github.com/cenkalti/backoff', 'github.com/sourcegraph/conc', 'github.com/panjf2000/ants',
];

/**
 * Packages that start, pace or wait for goroutines on behalf of their caller. When a stack has no
 * user frame, the blocking site skips them for the dependency frame that called them: "blocked in
 * errgroup.Wait" says less than "blocked in the client library's Watch that waits on its errgroup".
 * Extend with `AnalyzeOptions.helperPackages`.
 */
export const KNOWN_HELPERS: readonly string[] = [
  'golang.org/x/sync/errgroup', 'golang.org/x/sync/semaphore', 'golang.org/x/sync/singleflight',
  'k8s.io/apimachinery/pkg/util/wait', 'k8s.io/utils/clock', 'github.com/sourcegraph/conc',
  'github.com/panjf2000/ants', 'github.com/cenkalti/backoff',
  // Standard-library primitives: never a dependency, listed so that helper checks read as one list.
  'sync', 'internal/sync', 'context', 'time',
];

/** Module cache (`/pkg/mod/x@v1.2.3/`), `-trimpath` module paths (`x@v1.2.3/`) and vendor trees. */
const DEPENDENCY_FILE = /(?:^|\/)pkg\/mod\/|@v\d|(?:^|\/)vendor\//;

/** The Go toolchain downloaded into the module cache holds the standard library, not a dependency. */
const TOOLCHAIN_FILE = /\/golang\.org\/toolchain@/;

/**
 * Import path of a function's package when the reader left `Frame.pkg` empty: the package ends at
 * the first '.' after the last '/' (type arguments `F[…]` ignored).
 */
export function packageOfFunc(func: string): string {
  const bracket = func.indexOf('[');
  const slash = func.lastIndexOf('/', bracket < 0 ? func.length : bracket);
  const dot = func.indexOf('.', slash + 1);
  return dot > 0 ? func.slice(0, dot) : '';
}

/** Under `prefix` as a path: `a/b` is under `a/b` and `a/b/c`, not `a/bc`; `x/` prefixes match as text. */
function under(pkg: string, prefix: string): boolean {
  if (prefix.endsWith('/')) return pkg.startsWith(prefix);
  return pkg === prefix || (pkg.startsWith(prefix) && pkg.charCodeAt(prefix.length) === 47 /* / */);
}

/** Origin of one frame, without options. */
export function frameOrigin(frame: Frame, userModules: readonly string[] = []): FrameOrigin {
  const pkg = frame.pkg || packageOfFunc(frame.func);
  for (const m of userModules) if (under(pkg, m)) return 'user';
  if (pkg === 'runtime' || pkg.startsWith('runtime/internal/') || pkg.startsWith('internal/runtime/')) {
    return 'runtime';
  }
  if (pkg === 'main') return 'user';
  const file = frame.file.replace(/\\/g, '/');
  const first = pkg.split('/', 1)[0];
  if (!first.includes('.')) {
    if (STDLIB_ROOTS.has(first)) return 'stdlib';
    // Pre-modules GOPATH vendoring inside the user's tree: `app/vendor/github.com/x/y`.
    return pkg.includes('/vendor/') ? 'dependency' : 'user';
  }
  if (TOOLCHAIN_FILE.test(file)) return 'stdlib';
  if (DEPENDENCY_FILE.test(file) || pkg.includes('/vendor/')) return 'dependency';
  for (let i = 0; i < KNOWN_DEPENDENCIES.length; i++) if (under(pkg, KNOWN_DEPENDENCIES[i])) return 'dependency';
  return 'user';
}

/** Origins and helper checks for one analysis, cached per interned frame. */
export class OriginClassifier {
  private readonly cache = new Map<Frame, FrameOrigin>();
  /** By package: `blockingSite` asks about site frames, which are new objects per group. */
  private readonly helperCache = new Map<string, boolean>();
  /** Site frames by frame, then by position (`siteFrames`). */
  private readonly sites = new FrameSlots<SiteFrame[]>();
  /** The frames of `sites`, in order of first sight. */
  private readonly seen: Frame[] = [];
  private readonly userModules: readonly string[];
  private readonly helpers: readonly string[];

  constructor(opts: Pick<AnalyzeOptions, 'userModules' | 'helperPackages'> = {}) {
    this.userModules = (opts.userModules ?? []).filter((m) => m.length > 0);
    this.helpers = [...KNOWN_HELPERS, ...(opts.helperPackages ?? [])];
  }

  origin(frame: Frame): FrameOrigin {
    let o = this.cache.get(frame);
    if (o === undefined) {
      o = frameOrigin(frame, this.userModules);
      this.cache.set(frame, o);
    }
    return o;
  }

  isHelper(frame: Frame): boolean {
    const pkg = frame.pkg || packageOfFunc(frame.func);
    let h = this.helperCache.get(pkg);
    if (h === undefined) {
      h = !this.userModules.some((m) => under(pkg, m)) && this.helpers.some((p) => under(pkg, p));
      this.helperCache.set(pkg, h);
    }
    return h;
  }

  /**
   * Frames with their origin and index. A site frame is made once per frame and position and shared
   * by the groups that have that frame there (distinct stacks share most of their frames).
   */
  siteFrames(frames: readonly Frame[]): SiteFrame[] {
    const out = new Array<SiteFrame>(frames.length);
    for (let index = 0; index < frames.length; index++) {
      const f = frames[index];
      let at = this.sites.get(f);
      if (at === undefined) {
        at = [];
        this.sites.set(f, at);
        this.seen.push(f);
      }
      out[index] = at[index] ??= { func: f.func, pkg: f.pkg, file: f.file, line: f.line, inlined: f.inlined, origin: this.origin(f), index };
    }
    return out;
  }

  /** The functions of the frames `siteFrames` was given, once each. */
  siteFunctions(): Set<string> {
    const out = new Set<string>();
    for (let i = 0; i < this.seen.length; i++) out.add(this.seen[i].func);
    return out;
  }

  /**
   * The blocking site, in order of preference:
   * 1. the innermost `user` frame: where the program's own code waits;
   * 2. the innermost `dependency` frame that is not a known helper;
   * 3. the OUTERMOST standard-library frame that is not a helper: in a stack of only the standard
   *    library, the innermost frame is the same plumbing for every goroutine of a kind
   *    (`internal/poll.runtime_pollWait` for all I/O), while the outermost names the goroutine
   *    (`net/http.(*conn).serve`, `net/http.(*persistConn).readLoop`), past a go statement's wrapper
   *    (`(*Server).Serve.gowrap3`, which signal dumps print under it);
   * 4. the innermost helper of a dependency (`errgroup.(*Group).Wait`);
   * 5. the innermost non-runtime frame.
   */
  blockingSite(frames: readonly SiteFrame[]): SiteFrame | undefined {
    let dependency: SiteFrame | undefined;
    let stdlib: SiteFrame | undefined;
    let helper: SiteFrame | undefined;
    let any: SiteFrame | undefined;
    for (const f of frames) {
      if (f.origin === 'user') return f;
      if (f.origin === 'runtime') continue;
      any ??= f;
      if (this.isHelper(f)) {
        if (f.origin === 'dependency') helper ??= f;
      } else if (f.origin === 'dependency') dependency ??= f;
      // A compiler's wrapper (signal dumps print them) names no goroutine: the function it calls does.
      else if (!stdlib || !isWrapperFrame(f)) stdlib = f;
    }
    return dependency ?? stdlib ?? helper ?? any;
  }
}
