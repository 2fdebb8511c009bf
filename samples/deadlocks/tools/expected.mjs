// Writes every <case>/expected.json (schema leakscope-deadlock/v1) from the table below and the
// `//stuck:<id>` markers in the case's Go files (so line numbers follow the code). The table is
// hand-written; regenerate.sh (tools/checkdumps) then proves each site and state against the real
// dumps. The files list is what regenerate.sh produced (<case>/go1.*/*.txt).
// Usage: node samples/deadlocks/tools/expected.mjs
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = join(dirname(fileURLToPath(import.meta.url)), '..');
const GO = { 'go1.19': 'go1.19.8', 'go1.23': 'go1.23.5', 'go1.24': 'go1.24.4', 'go1.26': 'go1.26.10' };
const VERSIONS = Object.keys(GO);
/** The wait reason per version; `since` lists [version, reason] changes in order (see docs/go-versions.md). */
const reason = (...since) => Object.fromEntries(VERSIONS.map((v) => [v, since.filter(([from]) => v >= from).at(-1)[1]]));
const STATES = {
  lock: reason(['go1.19', 'semacquire'], ['go1.23', 'sync.Mutex.Lock']),
  rlock: reason(['go1.19', 'semacquire'], ['go1.23', 'sync.RWMutex.RLock']),
  wlock: reason(['go1.19', 'semacquire'], ['go1.23', 'sync.RWMutex.Lock']),
  wg: reason(['go1.19', 'semacquire'], ['go1.24', 'sync.WaitGroup.Wait']),
  cond: reason(['go1.19', 'sync.Cond.Wait']),
  send: reason(['go1.19', 'chan send']),
  recv: reason(['go1.19', 'chan receive']),
  select: reason(['go1.19', 'select']),
};
const KIND = { lock: 'mutex', rlock: 'rwmutex', wlock: 'rwmutex', wg: 'waitgroup', cond: 'cond', send: 'chan-send', recv: 'chan-receive', select: 'select' };
const RUNNER = { function: 'testing.(*T).Run', file: '', line: 0, note: 'the test runner (main goroutine, chan receive) waits for the hung test' };
const ALARM = { function: 'testing.(*M).startAlarm.func1', file: '', line: 0, note: 'the -timeout alarm: the goroutine that panics and prints the dump (test-timeout files only)' };

// stuck: [marker, function (after the package path), op, note]; consequences: same, or a std entry.
const CASES = {
  'ledger-transfer': {
    taxonomy: 'resource/abba', verdict: 'deadlock',
    description: 'Two independent bugs: Transfer(alice, bob) and Transfer(bob, alice) lock the two accounts in opposite orders (AB-BA); and (*Cache).Refresh holds c.mu.Lock() while it calls Get, which takes c.mu.RLock() in the same goroutine (self-deadlock).',
    stuck: [
      ['transfer', 'Transfer', 'lock', 'holds a.mu of the first account (alice), waits for b.mu of bob; the other Transfer holds bob and waits for alice. Both goroutines are at this line; frame args a, b are the two *Account pointers, swapped between the goroutines, and the lockSlow arg is &b.mu (an *Account address + 0x10)'],
      ['transfer', 'Transfer', 'lock', 'the second goroutine of the AB-BA pair (holds bob, waits for alice)'],
      ['get', '(*Cache).Get', 'rlock', 'RLock of c.mu inside Get, called from (*Cache).Refresh (ledger.go Refresh loop) which holds c.mu.Lock(): self-deadlock of one goroutine; Get is inlined and printed as Get(...)'],
    ],
    consequences: [['', 'TestLedgerSettles', 'wg.Wait in the test waits for the three goroutines'], RUNNER],
    notes: 'Two findings expected, not one: the AB-BA pair (two goroutines in Transfer, same line, receiver args swapped) and the Refresh->Get self-deadlock (one goroutine). In the sigquit dumps the test binary was started with -test.timeout=10m.',
  },
  'config-reload-double-lock': {
    taxonomy: 'resource/double-lock', verdict: 'deadlock',
    description: '(*Registry).Reload locks the embedded sync.Mutex and calls upgrade, which calls lookup, which locks the same mutex again: the goroutine waits for itself.',
    stuck: [['lookup', '(*Registry).lookup', 'lock', 'second Lock of the embedded r.Mutex; the chain is Reload (holds r) -> upgrade -> lookup. In test-timeout the test goroutine itself hangs; in the leak report a goroutine started by the test does']],
    consequences: [RUNNER],
    notes: 'The mutex is embedded as the first field (r.Lock()), so the lockSlow argument equals the *Registry receiver address printed in the lookup/upgrade/Reload frames (when not inlined).',
  },
  'session-evict-double-lock': {
    taxonomy: 'resource/double-lock', verdict: 'deadlock',
    description: 'evictExpired(tbl, ...) holds tbl.mu and calls touch(tbl, ...), a plain function that locks tbl.mu again: self-deadlock through a function taking the object as its argument.',
    stuck: [['touch', 'touch', 'lock', 'tbl.mu is not the first field of *table (offset 0x20: name string, capacity int, hits uint64 come first); evictExpired (caller frame) holds it']],
    consequences: [['', 'TestEvictKeepsAdmins', 'the test waits on its done channel (chan receive)'], RUNNER],
    notes: 'The mutex address in sync.(*Mutex).lockSlow is the *table argument + 0x20.',
  },
  'inventory-move-abba': {
    taxonomy: 'resource/abba', verdict: 'deadlock',
    description: 'Rebalance runs each move in a closure that locks the source bin, then the destination bin; moving north->south and south->north concurrently is an AB-BA deadlock.',
    stuck: [
      ['move', 'Rebalance.func1', 'lock', 'closure of move north->south: holds north.lock, waits for south.lock (the Move value is passed by value: frame args are its words)'],
      ['move', 'Rebalance.func1', 'lock', 'closure of move south->north: holds south.lock, waits for north.lock'],
    ],
    consequences: [['rebalance', 'Rebalance', 'wg.Wait for the two closures'], RUNNER],
    notes: 'Both lockers are the same closure at the same line; only the bins differ. Bin.lock sits after Label (string) and qty (map): offset 0x18.',
  },
  'graph-link-abba': {
    taxonomy: 'resource/abba', verdict: 'deadlock',
    description: 'Link write-locks its own node (an RWMutex in an anonymous struct field) and then read-locks the peer in peerEdges; linking a->b and b->a at once deadlocks (AB-BA over RWMutex Lock/RLock).',
    stuck: [
      ['peer', '(*Node).peerEdges', 'rlock', 'a.Link(b): holds a.state (Lock), waits for RLock of b.state'],
      ['peer', '(*Node).peerEdges', 'rlock', 'b.Link(a): holds b.state, waits for RLock of a.state'],
    ],
    consequences: [['', 'TestLinkIsSymmetric', 'the test waits on done (chan receive)'], RUNNER],
    notes: 'Run with -timeout 75s after a runtime.GC() in the test, so the headers print `, 1 minutes`. Receivers and peers are swapped between the two goroutines.',
  },
  'metrics-snapshot-rlock': {
    taxonomy: 'resource/rwmutex-recursive-rlock', verdict: 'deadlock',
    description: 'Snapshot holds h.mu.RLock and calls percentile, which RLocks h.mu again; a Record that queued h.mu.Lock() in between makes the second RLock wait for the writer, and the writer waits for the first RLock.',
    stuck: [
      ['percentile', '(*Histogram).percentile', 'rlock', 'recursive RLock (called from Snapshot, which holds the first RLock)'],
      ['record', '(*Histogram).Record', 'wlock', 'the pending writer: waits for the reader that holds the first RLock'],
    ],
    consequences: [RUNNER],
    notes: 'Without the writer the recursion would pass; the diagnosis needs both goroutines. In the leak report the test gave up after 300ms.',
  },
  'dns-cache-rlock': {
    taxonomy: 'resource/rwmutex-recursive-rlock', verdict: 'deadlock',
    description: 'The resolve closure holds r.RLock() (a *sync.RWMutex embedded by pointer) and calls the ttlOf closure, which RLocks again; the expire closure queued r.Lock() in between.',
    stuck: [
      ['ttl', 'Start.func1', 'rlock', 'ttlOf: the recursive RLock, called from Start.func2 (resolve) in the test goroutine'],
      ['expire', 'Start.func3', 'wlock', 'expire: the pending writer'],
    ],
    consequences: [RUNNER],
    notes: 'Closures, no methods: the shared RWMutex is reached through the closure context, and the mutex is a pointer field (*sync.RWMutex) at offset 8.',
  },
  'search-first-result': {
    taxonomy: 'communication/channel', verdict: 'leak',
    description: 'First sends every replica\'s answer to an unbuffered channel and reads only the first; the slower replicas block forever in their send.',
    stuck: [['send', 'First.func1', 'send', 'one goroutine per slower replica; nobody will ever receive']],
    consequences: [],
    notes: 'The leak report (our goleak look-alike) lists 2 goroutines; the test-timeout dump comes from a soak test that called First 3 times and then sleeps (test goroutine in `sleep`), so 3 leaked senders, and the hang itself is the harmless sleep.',
  },
  'log-shipper-range': {
    taxonomy: 'communication/channel', verdict: 'deadlock',
    description: 'Ship ranges over lines until it is closed; Tail returns without closing it, so Ship waits forever and the test waiting for the flush hangs.',
    stuck: [['range', '(*Shipper).Ship', 'recv', 'the receive nobody sends to or closes (for ... range lines)']],
    consequences: [['flushwait', 'TestShipFlushesAll', 'waits for s.flushed, which Ship sends only after the range ends (chan receive)'], RUNNER],
    notes: 'The sender (Tail) has returned: it is in no dump.',
  },
  'metrics-fanout-stall': {
    taxonomy: 'mixed/channel-lock', verdict: 'deadlock',
    description: 'A dispatcher hands every sample to each sink\'s queue (capacity 4) with a plain send. One exporter holds its lock while it writes to a pipe nobody reads; its sink\'s drain waits for that lock, the queue fills, the dispatcher parks on it, and the 8 recorders wait to hand it their samples.',
    stuck: [
      ['deliver', '(*Dispatcher).run', 'send', 'the relay: parked on the full queue of the sink whose drain is stuck'],
      ['record', '(*Dispatcher).Record', 'send', 'the 8 recorders, waiting for the dispatcher (not for a receiver that is gone)'],
      ['add', '(*Exporter).Add', 'lock', 'the stuck consumer: the slow sink\'s drain waits for the exporter\'s lock'],
      ['flush', '(*Exporter).Flush', 'select', 'holds the exporter\'s lock, writing to a pipe nobody reads (io.(*pipe).write selects)'],
    ],
    consequences: [['wait', 'TestRecordReachesSinks', 'waits for the recorders (wg.Wait)'], RUNNER],
    notes: 'Three sinks keep draining: their drains idle at the receive of their queues.',
  },
  'rpc-timeout-abandon': {
    taxonomy: 'communication/channel', verdict: 'leak',
    description: 'Call starts a goroutine that sends the reply on an unbuffered channel and selects on it with time.After; after the timeout nobody receives and the goroutine blocks forever (the classic time.After leak).',
    stuck: [['reply', '(*Client).Call.func1', 'send', 'one per timed-out call']],
    consequences: [],
    notes: 'Leak report: 2 leaked goroutines (2 calls). test-timeout and sigquit: a soak test made 3 timed-out calls and sleeps.',
  },
  'event-stream-ctx': {
    taxonomy: 'communication/channel-context', verdict: 'deadlock',
    description: 'emit checks ctx.Err() only between events and sends without selecting on ctx.Done(); Run stops reading, cancels and waits, and emit stays blocked in its send.',
    stuck: [['emit', 'emit', 'send', 'the send that should be a select with <-ctx.Done()']],
    consequences: [['run', 'Run', 'wg.Wait for the producer after cancel()'], RUNNER],
    notes: 'The context is already cancelled; its Done channel is never selected.',
  },
  'number-generator-ctx': {
    taxonomy: 'communication/channel-context', verdict: 'leak',
    description: 'Squares starts a goroutine that sends squares forever and ignores its ctx; Take reads n values, cancels and returns, and the generator goroutine stays blocked in its send.',
    stuck: [['gen', 'Squares.func1', 'send', 'one per Take call']],
    consequences: [],
    notes: 'test-timeout: a soak that called Take twice and then blocks in `select {}` (state `select (no cases)`), so 2 leaked generators.',
  },
  'job-queue-cond': {
    taxonomy: 'communication/cond', verdict: 'deadlock',
    description: 'Pop waits on q.ready (a sync.Cond over the queue\'s own mutex); PushFront, the retry path, appends without Signal, so the waiting worker never wakes although a job is queued.',
    stuck: [['pop', '(*Queue).Pop', 'cond', 'the missing Signal is in (*Queue).PushFront, which has returned']],
    consequences: [['', 'TestRetryIsPickedUp', 'waits for the popped job (chan receive)'], RUNNER],
    notes: 'The Cond is a *sync.Cond field; its L is &q.mu (mu at offset 0x20).',
  },
  'startup-gate-cond': {
    taxonomy: 'communication/cond', verdict: 'deadlock',
    description: 'Open sets the flag but Broadcasts only when listeners > 0, and nobody registers as a listener: every component in awaitOpen sleeps in cond.Wait forever.',
    stuck: [['await', 'awaitOpen', 'cond', 'one goroutine per component (3 in test-timeout, 2 in the leak report)']],
    consequences: [['', 'TestBootAfterOpen', 'waits for the first component (chan receive)'], RUNNER],
    notes: 'The Cond is a sync.Cond value field (g.cond) with L = &g.lk.',
  },
  'crawler-wg-results': {
    taxonomy: 'communication/channel-waitgroup', verdict: 'deadlock',
    description: 'Crawl calls wg.Wait before reading the unbuffered results channel; the workers block sending their page and never call Done.',
    stuck: [
      ['send', '(*Crawler).worker', 'send', 'two workers, each waiting for a receiver'],
      ['wait', '(*Crawler).Crawl', 'wg', 'the goroutine that should receive is waiting for the senders to finish'],
    ],
    consequences: [RUNNER],
    notes: 'The WaitGroup is passed to worker by pointer (&wg): the same address is in the Crawl frame\'s Wait call.',
  },
  'batch-upload-wg': {
    taxonomy: 'communication/channel-waitgroup', verdict: 'deadlock',
    description: 'UploadAll adds len(parts) to the WaitGroup, but the goroutine for an empty part returns before its defer wg.Done(); Wait waits for a Done that nobody will call.',
    stuck: [['wait', 'UploadAll', 'wg', 'no other goroutine of the program is alive: the missing Done is on the early-return path of UploadAll.func1']],
    consequences: [RUNNER],
    notes: 'A pure Add/Done mismatch: the dump holds only the waiter.',
  },
  'errgroup-fanout': {
    taxonomy: 'communication/channel-waitgroup', verdict: 'deadlock',
    description: 'A hand-written errgroup: shard 0 fails and cancels the group, the collector goroutine returns on ctx.Done, and the other tasks block forever sending their values; (*group).Wait waits for them.',
    stuck: [
      ['send', 'Sum.func1', 'send', 'three tasks (shards 1-3), each called from (*group).Go.func1'],
      ['wait', '(*group).Wait', 'wg', 'g.wg.Wait in the test goroutine'],
    ],
    consequences: [RUNNER],
    notes: 'The sends do not select on ctx.Done(); the context is cancelled.',
  },
  'pubsub-broker-lock': {
    taxonomy: 'mixed/channel-lock', verdict: 'deadlock',
    description: 'Publish holds b.mu while it sends on the unbuffered events channel; the subscriber, between two receives, calls b.Stats(), which locks b.mu.',
    stuck: [
      ['publish', '(*Broker).Publish', 'send', 'holds b.mu (locked at the top of Publish), sending the second event'],
      ['stats', '(*Broker).Stats', 'lock', 'the receiver (Subscribe loop) waits for b.mu'],
    ],
    consequences: [RUNNER],
    notes: 'Run with -timeout 75s after a runtime.GC(), so the headers print `, 1 minutes`. b.mu sits at offset 0x20 of *Broker.',
  },
  'conn-pool-reply-lock': {
    taxonomy: 'mixed/channel-lock', verdict: 'deadlock',
    description: 'Acquire holds p.mtx while it waits for the dialer\'s reply; the dialer must lock p.mtx to count the connection before replying.',
    stuck: [
      ['acquire', '(*Pool).Acquire', 'recv', 'holds p.mtx, receives on reply'],
      ['dialer', 'dialer', 'lock', 'the goroutine that should send the reply, waiting for p.mtx'],
    ],
    consequences: [RUNNER],
    notes: 'dialer is a plain function taking *Pool; Acquire a method on the same *Pool.',
  },
  'worker-pool-self-enqueue': {
    taxonomy: 'communication/channel', verdict: 'deadlock',
    description: 'Each worker expands a task and Submits the children into the pool\'s own bounded queue; once the queue is full, all workers block in that send and nobody drains it.',
    stuck: [['submit', '(*Pool).Submit', 'send', 'every worker (3) is here, called from (*Pool).run: the only receivers of the queue are the blocked senders']],
    consequences: [['drain', '(*Pool).Drain', 'pending.Wait for tasks that cannot finish'], RUNNER],
    notes: 'Queue capacity 4, 3 workers, a tree of 85 tasks.',
  },
  'service-shutdown-wg': {
    taxonomy: 'mixed/lock-waitgroup', verdict: 'deadlock',
    description: 'Shutdown holds s.mu while it waits on s.wg; each worker, on ctx.Done, locks s.mu to record its count before Done.',
    stuck: [
      ['shutdown', '(*Service).Shutdown', 'wg', 'holds s.mu'],
      ['worker', '(*Service).loop', 'lock', 'two workers waiting for s.mu'],
    ],
    consequences: [RUNNER],
    notes: 'Run with -timeout 75s after a runtime.GC(), so the headers print `, 1 minutes`.',
  },
  'index-flush-cond-lock': {
    taxonomy: 'mixed/lock-waitgroup', verdict: 'deadlock',
    description: 'Flush holds idx.mu while it waits on the write-ahead log\'s Cond (which releases only the log\'s mutex); the syncer must lock idx.mu before it can Broadcast.',
    stuck: [
      ['flush', '(*Index).Flush', 'cond', 'holds idx.mu while in cond.Wait of another object'],
      ['syncer', '(*Index).syncer', 'lock', 'the goroutine that would Broadcast, waiting for idx.mu'],
    ],
    consequences: [RUNNER],
    notes: 'Lock held across Cond.Wait of a different object: the analysis must not assume Wait released every lock.',
  },
  'metrics-aggregator-wg': {
    taxonomy: 'mixed/channel-waitgroup', verdict: 'deadlock',
    description: 'Collect holds a.mu and waits for the scrapers; each scraper sends on an unbuffered channel drained by a goroutine that locks a.mu per sample: lock -> WaitGroup -> channel -> lock.',
    stuck: [
      ['collect', '(*Aggregator).Collect', 'wg', 'holds a.mu'],
      ['scrape', 'scrape', 'send', 'every scraper (one per source) blocked in a send; drain already holds one received sample'],
      ['drain', 'drain', 'lock', 'the receiver, holding one sample, waits for a.mu'],
    ],
    consequences: [RUNNER],
    notes: 'Three goroutines in a cycle of three kinds of wait. In the leak report the test gave up after 200ms.',
  },
  'shutdown-order-wg': {
    taxonomy: 'communication/channel-waitgroup', verdict: 'deadlock',
    description: 'Stop waits for the handlers before it closes quit, but the handlers loop in a select until quit is closed (wrong shutdown order).',
    stuck: [
      ['stop', '(*Server).Stop', 'wg', 'waits before close(s.quit)'],
      ['handler', '(*Server).handle', 'select', 'two handlers selecting on requests, an hourly ticker and quit'],
    ],
    consequences: [RUNNER],
    notes: 'The handlers look healthy on their own (select with a quit case); only the Stop goroutine shows that nobody will close quit.',
  },
  'healthy-http-idle': {
    taxonomy: 'healthy', verdict: 'healthy',
    description: 'An idle net/http server on 127.0.0.1 after one request, with its keep-alive connection open; the test keeps the process up in time.Sleep.',
    stuck: [], consequences: [], notes: 'Accept loop and connection reader in IO wait, the client transport\'s readLoop/writeLoop in select. Dumped by SIGQUIT.',
  },
  'healthy-worker-pool-idle': {
    taxonomy: 'healthy', verdict: 'healthy',
    description: 'A pool of 4 workers at rest, ranging over the jobs channel, and a goroutine waiting for ctx.Done to close it.',
    stuck: [], consequences: [], notes: 'Workers in chan receive is the normal resting state of a pool. Dumped by SIGQUIT.',
  },
  'healthy-background-loops': {
    taxonomy: 'healthy', verdict: 'healthy',
    description: 'A test that passed its check while a ticker loop (select on tick and ctx.Done) and a signal.Notify loop keep running.',
    stuck: [], consequences: [], notes: 'os/signal.signal_recv and the ticker loop in select are background loops. Dumped by SIGQUIT.',
  },
  'healthy-pipeline-busy': {
    taxonomy: 'healthy', verdict: 'healthy',
    description: 'A parse -> hash -> sink pipeline mid-flight: the sink is busy hashing, so the upstream stages wait in chan send (back-pressure).',
    stuck: [], consequences: [], notes: 'The consumer is running (or runnable): the blocked senders will be received. Dumped by SIGQUIT.',
  },
  'healthy-select-server': {
    taxonomy: 'healthy', verdict: 'healthy',
    description: 'A hub: the run loop, a janitor with a ticker and two sessions, each in a select that also watches ctx.Done().',
    stuck: [], consequences: [], notes: 'Dumped by SIGQUIT.',
  },
  // The 13 programs of the independent held-out evaluation (their truth file gave the sites; the
  // code keeps the evaluator's line numbers). SIGQUIT dumps run TestProgram, i.e. the program's main.
  'seat-booking-audit': {
    taxonomy: 'resource/double-lock', verdict: 'deadlock',
    description: 'reserveSeat holds v.mu and calls appendAudit(v, ...), a plain function taking the venue, which locks v.mu again: self-deadlock of one goroutine.',
    stuck: [['audit', 'appendAudit', 'lock', 'second Lock of v.mu; the caller reserveSeat (booking.go:35) holds it']],
    consequences: [RUNNER],
    notes: 'Held-out program (independent evaluation). v.mu is the first field of *venue, so the lockSlow argument equals the venue pointer.',
  },
  'rail-segment-cycle': {
    taxonomy: 'resource/abba', verdict: 'deadlock',
    description: 'Three trains each hold their segment and then lock the next segment of a loop (north -> east -> south -> north): a lock-order cycle of three goroutines.',
    stuck: [
      ['advance', 'advance', 'lock', 'IC-401: holds north, waits for east'],
      ['advance', 'advance', 'lock', 'RE-17: holds east, waits for south'],
      ['advance', 'advance', 'lock', 'S-3: holds south, waits for north'],
    ],
    consequences: [['schedule', 'runLoopSchedule', 'wg.Wait for the three trains'], RUNNER],
    notes: 'Held-out program (independent evaluation). A cycle of three, not a pair: all three goroutines are at the same line, called from runLoopSchedule.func1; segment.mu sits after name (string): offset 0x10.',
  },
  'feature-flag-rlock': {
    taxonomy: 'resource/rwmutex-recursive-rlock', verdict: 'deadlock',
    description: 'Enabled holds s.mu.RLock and calls defaultFor, which RLocks s.mu again; refreshLoop queued s.mu.Lock() (Replace) while bucket was sleeping, so the second RLock waits for the writer and the writer waits for the first RLock.',
    stuck: [
      ['default', '(*FlagStore).defaultFor', 'rlock', 'recursive RLock, called from (*FlagStore).Enabled which holds the first RLock'],
      ['replace', '(*FlagStore).Replace', 'wlock', 'the pending writer, called from refreshLoop'],
    ],
    consequences: [RUNNER],
    notes: 'Held-out program (independent evaluation). Without the refresh loop the recursion would pass.',
  },
  'game-lobby-announce': {
    taxonomy: 'mixed/channel-lock', verdict: 'deadlock',
    description: 'Join holds l.mu while it sends on the unbuffered events channel; the announcer, after receiving the first event, calls Count, which locks l.mu.',
    stuck: [
      ['join', '(*Lobby).Join', 'send', 'the second Join: holds l.mu, sends its event'],
      ['count', '(*Lobby).Count', 'lock', 'the only receiver (announce loop) waits for l.mu'],
    ],
    consequences: [RUNNER],
    notes: 'Held-out program (independent evaluation). The evaluation found the go test dumps reported as a blocked send with nobody receiving instead of the lock-held-while-sending cycle.',
  },
  'device-flash-cond': {
    taxonomy: 'communication/cond', verdict: 'deadlock',
    description: 'flash starts powerOn, which Broadcasts after 5 ms, and calls awaitBoot only after a 25 ms image check; awaitBoot waits on the Cond without checking d.up, so the Broadcast is lost.',
    stuck: [['await', '(*Device).awaitBoot', 'cond', 'the Wait after the only Broadcast; powerOn has returned']],
    consequences: [RUNNER],
    notes: 'Held-out program (independent evaluation). A lost wake-up: no other goroutine of the program is alive.',
  },
  'thumbnail-batch-skip': {
    taxonomy: 'communication/channel-waitgroup', verdict: 'deadlock',
    description: 'renderThumbnails calls wg.Add(1) before it skips an unsupported file with continue (thumbs.go:31-32), so that Add has no Done and wg.Wait waits for ever.',
    stuck: [['wait', 'renderThumbnails', 'wg', 'the only goroutine of the batch left: the missing Done is on the skip path']],
    consequences: [RUNNER],
    notes: 'Held-out program (independent evaluation). The evaluation found no finding at all on its SIGQUIT dumps (a lone wg.Wait in main).',
  },
  'contact-import-abandon': {
    taxonomy: 'communication/channel-waitgroup', verdict: 'deadlock',
    description: 'Import returns at the first bad address without draining rows; the reader goroutine stays blocked sending the next record, and Close waits for it in wg.Wait.',
    stuck: [['send', 'readRecords', 'send', 'the record after the bad one; nobody receives any more']],
    consequences: [['close', '(*Importer).Close', 'wg.Wait for the reader goroutine'], RUNNER],
    notes: 'Held-out program (independent evaluation). readRecords is called from (*Importer).Import.func1.',
  },
  'sensor-merge-nocancel': {
    taxonomy: 'communication/channel-context', verdict: 'deadlock',
    description: 'FirstAlarm stops reading the merged channel at the first alarm; the merge goroutine sends without selecting on ctx.Done (ctx is never used), so after cancel it stays blocked, and Stop waits for it in wg.Wait.',
    stuck: [
      ['temp', '(*Aggregator).merge.func1', 'send', 'merge goroutines blocked sending a temperature reading'],
      ['humidity', '(*Aggregator).merge.func1', 'send', 'merge goroutines blocked sending a humidity reading'],
    ],
    consequences: [['stop', '(*Aggregator).Stop', 'wg.Wait of the first aggregator, called from the test'], RUNNER],
    notes: 'Held-out program (independent evaluation). Which send blocks is chosen by the select at random (the evaluator\'s dumps had line 44 under Go 1.19 and 50 under 1.23), so the dumps come from TestSoakFirstAlarm, twelve aggregators: both lines appear unless all twelve pick the same one (probability 2/4096 per dump).',
  },
  'cache-warm-lock-wait': {
    taxonomy: 'mixed/lock-waitgroup', verdict: 'deadlock',
    description: 'WarmAll holds w.mu while it waits for the fetch goroutines, and each of them locks w.mu in store before Done.',
    stuck: [
      ['warm', '(*Warmer).WarmAll', 'wg', 'holds w.mu'],
      ['store', '(*Warmer).store', 'lock', 'one fetch goroutine per key (WarmAll.func1), waiting for w.mu'],
    ],
    consequences: [RUNNER],
    notes: 'Held-out program (independent evaluation). The program also calls signal.Notify: its os/signal goroutine is in the dumps and is not what WarmAll waits for.',
  },
  'mail-dispatch-shutdown': {
    taxonomy: 'communication/channel-waitgroup', verdict: 'deadlock',
    description: 'Shutdown closes quit and waits on the WaitGroup, but never closes jobs: the workers range over jobs for ever (retryLoop did return on quit).',
    stuck: [['range', '(*Dispatcher).worker', 'recv', 'every worker, in for m := range d.jobs']],
    consequences: [['shutdown', '(*Dispatcher).Shutdown', 'wg.Wait for the workers'], RUNNER],
    notes: 'Held-out program (independent evaluation). The sender side (Send) has returned; jobs is buffered and empty.',
  },
  'healthy-render-pool': {
    taxonomy: 'healthy', verdict: 'healthy',
    description: 'A pool of four render workers at rest, ranging over the unbuffered frames channel after three frames were rendered; the program waits for a signal before Close.',
    stuck: [], consequences: [], notes: 'Held-out program (independent evaluation), where it drew a false warning (idle workers as stuck waits) under Go 1.23. Dumped by SIGQUIT.',
  },
  'healthy-metrics-ticker': {
    taxonomy: 'healthy', verdict: 'healthy',
    description: 'A flush loop and a sampling loop, each in a select on a ticker and ctx.Done, while the program waits on signal.NotifyContext.',
    stuck: [], consequences: [], notes: 'Held-out program (independent evaluation). Dumped by SIGQUIT.',
  },
  'healthy-kv-http-idle': {
    taxonomy: 'healthy', verdict: 'healthy',
    description: 'An idle net/http key-value server on 127.0.0.1 after three client requests, with its keep-alive connections open.',
    stuck: [], consequences: [], notes: 'Held-out program (independent evaluation). Dumped by SIGQUIT.',
  },
};

function markers(dir) {
  const out = {};
  for (const f of readdirSync(join(HERE, dir)).filter((f) => f.endsWith('.go'))) {
    readFileSync(join(HERE, dir, f), 'utf8').split('\n').forEach((l, i) => {
      const m = /\/\/stuck:(\w+)/.exec(l);
      if (m) out[m[1]] = { file: `${dir}/${f}`, line: i + 1 };
    });
  }
  return out;
}

function site(dir, marks, [marker, fn, op, note], withState) {
  const pkg = `example.com/deadlocks/${dir}`;
  if (typeof marker !== 'string') return marker; // a std consequence entry
  const at = marker ? marks[marker] : { file: '', line: 0 };
  if (!at) throw new Error(`${dir}: no //stuck:${marker}`);
  const e = { function: `${pkg}.${fn}`, file: at.file, line: at.line };
  if (!marker && !withState) {
    // a test function: any line of it
    e.file = readdirSync(join(HERE, dir)).find((f) => f.endsWith('_test.go')) ? `${dir}/${readdirSync(join(HERE, dir)).find((f) => f.endsWith('_test.go'))}` : '';
  }
  if (withState) Object.assign(e, { states: STATES[op], waitKind: KIND[op] });
  e.note = note ?? op;
  return e;
}

for (const [dir, c] of Object.entries(CASES)) {
  const marks = markers(dir);
  const files = [];
  for (const v of VERSIONS) {
    const d = join(HERE, dir, v);
    if (!existsSync(d)) continue;
    for (const kind of ['test-timeout', 'leak-report', 'sigquit']) {
      if (existsSync(join(d, `${kind}.txt`))) files.push({ path: `${v}/${kind}.txt`, go: GO[v], kind });
    }
  }
  const hasTimeout = files.some((f) => f.kind === 'test-timeout');
  const consequences = c.consequences.map((x) => (Array.isArray(x) ? site(dir, marks, [x[0], x[1], undefined, x[2]], false) : x));
  if (hasTimeout && c.verdict !== 'healthy') consequences.push(ALARM);
  const doc = {
    schema: 'leakscope-deadlock/v1',
    case: dir,
    taxonomy: c.taxonomy,
    verdict: c.verdict,
    description: c.description,
    files,
    stuck: c.stuck.map((s) => site(dir, marks, s, true)),
    consequences,
    notes: `${c.notes} Leak reports are printed by internal/leakcheck, our stand-in for go.uber.org/goleak (goleak's format: the older record shape with the runtime header under Go 1.19, the newer one without it under Go 1.23 and later); every stack in them is the runtime's runtime.Stack text.`,
  };
  writeFileSync(join(HERE, dir, 'expected.json'), JSON.stringify(doc, null, 2) + '\n');
}
console.log(`wrote ${Object.keys(CASES).length} expected.json`);
