/** Named detectors a data rule can enable with `detector: <name>`; their thresholds come from `params`. */
import type { Detector } from '../candidate.js';
import { cascadeDetector } from '../cascade.js';
import { backpressureDetector, grpcConnsDetector } from './backpressure.js';
import { coalescedChanDetector, coalescedDetector } from './coalesced.js';
import { crashDetector, mapCrashDetector } from './crash.js';
import { grpcAwaitingDetector } from './grpc-wait.js';
import { awaitingResponseDetector } from './http-wait.js';
import { hiddenCascadeDetector, hiddenStateDetector } from './hidden.js';
import { hungSetDetector } from './hung.js';
import { orphanWaitDetector } from './joins.js';
import { lockOrderDetector } from './locks.js';
import { lockWriterDetector } from './lock-writer.js';
import { poolDetector } from './pool.js';
import { poolWaitDetector } from './pool-wait.js';
import { provenDetector } from './proven.js';
import { raceDetector } from './race.js';
import { behindRelayDetector, busyReceiverDetector, stalledRelayDetector } from './relay.js';
import { streamingBodiesDetector } from './streams.js';
import { busySendersDetector, longParkDetector, loopsDetector, proportionalDetector } from './scale.js';
import { heldLockDetector, selfLockDetector, stuckWaitDetector } from './waitfor.js';

export const DETECTORS: Readonly<Record<string, Detector>> = {
  cascade: cascadeDetector,
  pool: poolDetector,
  proven: provenDetector,
  'lock-order': lockOrderDetector,
  'lock-writer': lockWriterDetector,
  'orphan-wait': orphanWaitDetector,
  'map-crash': mapCrashDetector,
  crash: crashDetector,
  race: raceDetector,
  proportional: proportionalDetector,
  loops: loopsDetector,
  'long-park': longParkDetector,
  'hung-set': hungSetDetector,
  'hidden-cascade': hiddenCascadeDetector,
  'hidden-state': hiddenStateDetector,
  'self-lock': selfLockDetector,
  'held-lock': heldLockDetector,
  'stuck-wait': stuckWaitDetector,
  backpressure: backpressureDetector,
  'grpc-conns': grpcConnsDetector,
  'streaming-bodies': streamingBodiesDetector,
  'busy-senders': busySendersDetector,
  'stalled-relay': stalledRelayDetector,
  'busy-receiver': busyReceiverDetector,
  'behind-relay': behindRelayDetector,
  'pool-wait': poolWaitDetector,
  'awaiting-response': awaitingResponseDetector,
  'grpc-awaiting': grpcAwaitingDetector,
  coalesced: coalescedDetector,
  'coalesced-chan': coalescedChanDetector,
};
