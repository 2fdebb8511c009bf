/**
 * `streaming-bodies`: HTTP/1 client connections whose `readLoop` waits for a response body to be read
 * to the end are a leak when nobody reads those bodies, and normal when the caller is reading them: a
 * watch stream, a chunked download, server-sent events. The dump shows the readers: goroutines in
 * `net/http.(*bodyEOFSignal).Read` (a response body being read). When they account for the parked
 * readLoops, one snapshot does not say the responses are never closed: the candidate becomes the
 * `streaming` variant (info), unless the connections are very many (`maxStreams`) or grow (trend).
 */
import type { Detector } from '../candidate.js';
import { goroutinesIn } from '../frames.js';

const BODY_READ = 'net/http.(*bodyEOFSignal).Read';

export const streamingBodiesDetector: Detector = {
  description: 'marks parked HTTP client readLoops whose response bodies are being read (streams) as the `streaming` variant',
  refine(ctx, rule, c) {
    if (!c.root) return c;
    const max = ctx.param(rule, 'maxStreams', 1000);
    if (c.root.count >= max) return c;
    const readers = goroutinesIn(ctx.analysis, BODY_READ);
    if (readers < 0.9 * c.root.count) return c;
    return {
      ...c,
      variant: 'streaming',
      facts: [...c.facts, `${readers} goroutine${readers === 1 ? ' is' : 's are'} reading response bodies (${BODY_READ}): the connections are streams being read, not responses left open`],
    };
  },
};
