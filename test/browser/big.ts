/**
 * A big input for the HTML report: a debug=2 dump of 250,000 goroutines shaped like the API-proxy
 * incident (two huge leaked groups and their consequences) plus a long tail of distinct stacks, so the
 * page has many groups to list and stacks to cap.
 */
const STORE = '/src/apiproxy/pkg/stores/proxy/proxy_store.go';
const EG = '/go/pkg/mod/golang.org/x/sync@v0.7.0/errgroup/errgroup.go';

function goroutine(id: number, state: string, frames: Array<[string, string]>, creator: [string, string]): string {
  const body = frames.map(([fn, loc]) => `${fn}\n\t${loc} +0x1d`).join('\n');
  return `goroutine ${id} [${state}]:\n${body}\ncreated by ${creator[0]} in goroutine ${Math.max(1, id - 1)}\n\t${creator[1]} +0x8c\n\n`;
}

/** `total` goroutines; `tail` distinct small groups of 12 frames each take 1–20 goroutines. */
export function bigDebug2(total = 250_000, tail = 3_000): string {
  const out: string[] = [];
  let id = 2; // goroutine 1 is main
  const push = (s: string): void => {
    out.push(s);
    id++;
  };
  // The tail first: distinct stacks (different functions and lines), 1–20 goroutines each.
  let tailCount = 0;
  for (let t = 0; t < tail; t++) {
    const n = 1 + (t % 20);
    const pkg = `example.com/svc${t % 37}/internal/worker${t % 11}`;
    const frames: Array<[string, string]> = [
      ['runtime.gopark(0x0?, 0x0?, 0x0?, 0x0?, 0x0?)', '/usr/local/go/src/runtime/proc.go:424'],
      ['runtime.selectgo(0xc000a1bf28, 0xc000a1bef0, 0x0?, 0x0, 0x0?, 0x1)', '/usr/local/go/src/runtime/select.go:335'],
    ];
    for (let k = 0; k < 10; k++) frames.push([`${pkg}.(*Handler${t}).step${k}(0xc000010030)`, `/src/svc${t % 37}/worker${t % 11}/handler_${t}.go:${100 + k * 7}`]);
    for (let j = 0; j < n; j++) push(goroutine(id, `select, ${t % 90} minutes`, frames, [`${pkg}.Start${t}`, `/src/svc${t % 37}/worker${t % 11}/start.go:${t + 10}`]));
    tailCount += n;
  }
  const rest = total - 1 - tailCount;
  const leaked = Math.floor(rest * 0.46);
  const waiting = Math.floor(rest * 0.46);
  for (let i = 0; i < leaked; i++) {
    push(goroutine(id, 'chan send, 1432 minutes', [
      ['example.com/apiproxy/pkg/stores/proxy.returnErr(...)', `${STORE}:259`],
      ['example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch.func3()', `${STORE}:325`],
      ['golang.org/x/sync/errgroup.(*Group).Go.func1()', `${EG}:78`],
    ], ['golang.org/x/sync/errgroup.(*Group).Go', `${EG}:75`]));
  }
  for (let i = 0; i < waiting; i++) {
    push(goroutine(id, 'semacquire, 1432 minutes', [
      ['sync.runtime_Semacquire(0xc00010e000?)', '/usr/local/go/src/runtime/sema.go:71'],
      ['sync.(*WaitGroup).Wait(0x4d9f01?)', '/usr/local/go/src/sync/waitgroup.go:118'],
      ['golang.org/x/sync/errgroup.(*Group).Wait(0xc000106180)', `${EG}:56`],
      ['example.com/apiproxy/pkg/stores/proxy.(*Store).listAndWatch(0xc000010030, 0xc000102060)', `${STORE}:339`],
      ['example.com/apiproxy/pkg/stores/proxy.(*Store).watch.func1()', `${STORE}:391`],
    ], ['example.com/apiproxy/pkg/stores/proxy.(*Store).watch', `${STORE}:390`]));
  }
  for (let i = 0; id <= total; i++) {
    push(goroutine(id, 'IO wait', [
      ['internal/poll.runtime_pollWait(0x7f3a2c1e8f28, 0x72)', '/usr/local/go/src/runtime/netpoll.go:351'],
      ['net/http.(*conn).serve(0xc000222000, {0x573ac8, 0xc000102030})', '/usr/local/go/src/net/http/server.go:2092'],
    ], ['net/http.(*Server).Serve', '/usr/local/go/src/net/http/server.go:3360']));
  }
  return 'goroutine 1 [running]:\nmain.main()\n\t/src/apiproxy/main.go:70 +0x73a\n\n' + out.join('');
}
