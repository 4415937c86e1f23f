// The IC HTTP interface (interface spec, "HTTPS Interface") for the one canister of an IcHost, so that
// unmodified IC clients (HttpAgent, icp-cli, dfx) talk to the devnet as to a one-node local replica:
//   GET  /api/v2/status                                   CBOR, with the root key
//   POST /api/v2|v3/canister/<ecid>/query                 signed by the node key
//   POST /api/v3|v4/canister/<ecid>/call                  synchronous: answers the certificate
//   POST /api/v2/canister/<ecid>/call                     202, then read_state request_status
//   POST /api/v2|v3/canister/<ecid>/read_state            time, subnet, request_status, canister paths
//   POST /api/v2|v3/subnet/<subnet_id>/read_state         time, subnet, canister_ranges
// A call through here is the same host message as one through IcHost.update (same instruction limits,
// atomicity, inspect_message, caller = the envelope's sender). Certificates are signed by the data folder's
// BLS key (keys.ts); the certified tree holds the time, the subnet (key, canister range, the node's key) and
// the request statuses of the last ingress window. The HTTP server in front of the handler is listen.ts.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Cbor, hashOfMap, IC_RESPONSE_DOMAIN_SEPARATOR } from '@icp-sdk/core/agent';
import { Principal } from '@icp-sdk/core/principal';
import type { CallResult, IcHost } from '../index.js';
import { decodeEnvelope, envelopePrefixRefusal, PERMITTED_DRIFT_NS, type CallContent, type Envelope, type IcHttpError, type ReadStateContent } from './envelope.js';
import type { SubnetKeys } from './keys.js';
import { CERT_CACHE_ENTRIES, CERT_CACHE_NS, DEFAULT_LIMITS, RateLimiter, type IcHttpLimits } from './limits.js';
import { REQUESTS_FILE, SeenRequestLog } from './replay.js';
import { certify, lebEncode, StateTree, type LabeledTree } from './tree.js';

/** The replica's limit on an HTTP request body (ingress messages are at most 2 MiB plus the envelope). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Request statuses kept (one per ingress message of the last ingress window); beyond it new calls get 429. */
export const MAX_REQUEST_STATUSES = 100_000;
export const IMPL_VERSION = 'icp-evm-devnet';

/** IC reject codes and error codes (rs/types error_types) the devnet answers with. */
export const ErrorCode = {
  CanisterNotFound: 'IC0301',
  CanisterRejectedMessage: 'IC0406',
  CanisterTrapped: 'IC0502',
  CanisterCalledTrap: 'IC0503',
  CanisterDidNotReply: 'IC0506',
  CanisterInstructionLimitExceeded: 'IC0522',
  CanisterMethodNotFound: 'IC0536',
} as const;

/** The error code of a host reject, from its reject code and the host's message (src/host: instance.ts, index.ts). */
export function errorCodeOf(code: number, message: string): string {
  if (code === 3) return message.includes(' has no ') ? ErrorCode.CanisterMethodNotFound : ErrorCode.CanisterNotFound;
  if (code === 4) return ErrorCode.CanisterRejectedMessage;
  if (message.includes('exceeded the limit of')) return ErrorCode.CanisterInstructionLimitExceeded;
  if (message.includes('did not reply')) return ErrorCode.CanisterDidNotReply;
  if (message.includes('called `ic0.trap`')) return ErrorCode.CanisterCalledTrap;
  return ErrorCode.CanisterTrapped;
}

/** Canister ids this subnet is certified to host: the local replica's first range, ids 0 .. 2^20-1. */
const canisterIdOfIndex = (n: bigint): Uint8Array => {
  const b = Buffer.alloc(10);
  b.writeBigUInt64BE(n, 0);
  b[8] = 1;
  b[9] = 1;
  return new Uint8Array(b);
};
export const CANISTER_RANGE: readonly [Uint8Array, Uint8Array] = [canisterIdOfIndex(0n), canisterIdOfIndex((1n << 20n) - 1n)];

function inRange(p: Principal): boolean {
  const b = Buffer.from(p.toUint8Array());
  return b.length === 10 && Buffer.compare(b, Buffer.from(CANISTER_RANGE[0])) >= 0 && Buffer.compare(b, Buffer.from(CANISTER_RANGE[1])) <= 0;
}

type RequestStatus =
  | { status: 'processing' }
  /** Known from the data folder's log after a restart: it ran, its reply is not kept (the IC's pruned status). */
  | { status: 'done' }
  | { status: 'replied'; reply: Uint8Array }
  | { status: 'rejected'; rejectCode: number; rejectMessage: string; errorCode: string };

interface StatusEntry {
  readonly sender: string;
  readonly expiry: bigint;
  state: RequestStatus;
  /** Resolves when the message has executed (concurrent duplicates wait for the first). */
  readonly done: Promise<void>;
}

export type Reply = { status: number; body: Uint8Array | string; contentType?: string };
const cbor = (value: unknown, status = 200): Reply => ({ status, body: new Uint8Array(Cbor.encode(value)), contentType: 'application/cbor' });
const text = (e: IcHttpError | { status: number; message: string }): Reply => ({ status: e.status, body: e.message });
export const isReply = (r: Reply | Route): r is Reply => 'status' in r;

/** What a request asks for, known from its method, path and headers before its body is read. */
export type Route =
  | { readonly kind: 'status' }
  | { readonly kind: 'subnet_read_state' }
  | { readonly kind: 'canister'; readonly endpoint: 'query' | 'call' | 'read_state'; readonly target: Principal; readonly mode: 'sync' | 'async' };

const ANONYMOUS = Principal.anonymous().toText();
const TIME_LABEL = Buffer.from('time').toString('hex');

/** A digest of a labeled tree without its root `time` (the certificate cache's key). */
function treeKey(t: Map<string, LabeledTree>): string {
  const h = createHash('sha256');
  const walk = (node: Map<string, LabeledTree>, root: boolean): void => {
    for (const k of [...node.keys()].sort()) {
      if (root && k === TIME_LABEL) continue;
      const v = node.get(k)!;
      h.update(`(${k}:`);
      if (v instanceof Uint8Array) h.update(`${v.length}:`).update(v);
      else walk(v, false);
      h.update(')');
    }
  };
  walk(t, true);
  return h.digest('hex');
}

export class IcHttpHandler {
  private readonly statuses = new Map<string, StatusEntry>();
  /** Statuses held per sender (principal text), for the per-sender quotas. */
  private readonly held = new Map<string, number>();
  private readonly seen: SeenRequestLog | undefined;
  private readonly certCache = new Map<string, { cert: Uint8Array; at: bigint }>();
  private readonly certsPerSender: RateLimiter;
  private readonly certsAll: RateLimiter;
  readonly limits: IcHttpLimits;
  /** Certificates signed (cache misses), for the bench and tests. */
  signatures = 0;
  readonly canisterId: Principal;

  constructor(
    readonly host: IcHost,
    readonly keys: SubnetKeys,
    opts: { dataDir?: string; limits?: Partial<IcHttpLimits> } = {},
  ) {
    this.canisterId = Principal.fromUint8Array(host.canisterId.toUint8Array());
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.certsPerSender = new RateLimiter(this.limits.certsPerSecondPerSender, this.limits.certBurstPerSender);
    this.certsAll = new RateLimiter(this.limits.globalCertsPerSecond, this.limits.globalCertBurst, 1);
    if (opts.dataDir !== undefined) {
      const { log, live } = SeenRequestLog.open(join(opts.dataDir, REQUESTS_FILE), this.floorNs(), PERMITTED_DRIFT_NS);
      this.seen = log;
      for (const e of live) this.addStatus(e.id, { sender: e.sender, expiry: e.expiry, state: { status: 'done' }, done: Promise.resolve() });
    }
  }

  private nowNs(): bigint {
    return this.host.now();
  }

  /**
   * The lowest IC time the clock can show from now on: IC time, or the wall clock if lower. The devnet's
   * evm_revert moves IC time back, but never below the wall clock (wall mode adds a non-negative offset to
   * it), so a status is kept until both have passed its window: an envelope that can become valid again
   * after a revert is still remembered.
   */
  private floorNs(): bigint {
    const wall = BigInt(Date.now()) * 1_000_000n;
    const now = this.nowNs();
    return now < wall ? now : wall;
  }

  private addStatus(key: string, e: StatusEntry): void {
    this.statuses.set(key, e);
    this.held.set(e.sender, (this.held.get(e.sender) ?? 0) + 1);
  }

  private deleteStatus(key: string): void {
    const e = this.statuses.get(key);
    if (e === undefined) return;
    this.statuses.delete(key);
    const n = (this.held.get(e.sender) ?? 1) - 1;
    if (n <= 0) this.held.delete(e.sender);
    else this.held.set(e.sender, n);
  }

  /** Routes and runs one request; never throws (an unexpected failure is a 500 with its message, logged by the server). */
  async handle(method: string, path: string, body: Uint8Array, contentType: string | undefined): Promise<Reply> {
    const r = this.route(method, path, contentType);
    return isReply(r) ? r : this.run(r, body);
  }

  /** What the request is for, or its refusal: decided before the body is read (serve() then reads it only when needed). */
  route(method: string, path: string, contentType: string | undefined): Reply | Route {
    const m = /^\/api\/(v2|v3|v4)\/(canister|subnet)\/([a-z0-9-]+)\/(query|call|read_state)$/.exec(path);
    if (path === '/api/v2/status') {
      if (method !== 'GET') return text({ status: 405, message: 'Use GET for /api/v2/status.' });
      return { kind: 'status' };
    }
    if (m === null) return text({ status: 404, message: `No such endpoint: ${path}` });
    const [, version, scope, idText, endpoint] = m as unknown as [string, string, string, string, string];
    const known = scope === 'canister' ? (endpoint === 'read_state' ? version !== 'v4' : endpoint === 'query' ? version !== 'v4' : true) : endpoint === 'read_state' && version !== 'v4';
    if (!known) return text({ status: 404, message: `No such endpoint: ${path}` });
    if (method !== 'POST') return text({ status: 405, message: `Use POST for ${path}.` });
    if (contentType?.split(';')[0]?.trim().toLowerCase() !== 'application/cbor') {
      return text({ status: 400, message: 'Unexpected content-type, expected application/cbor.' });
    }
    let target: Principal;
    try {
      target = Principal.fromText(idText);
    } catch {
      return text({ status: 400, message: `Could not parse the ${scope} id ${JSON.stringify(idText)} in the URL as a principal` });
    }
    if (scope === 'subnet') {
      if (target.toText() !== this.keys.subnetId.toText()) return text({ status: 404, message: `Subnet ${target.toText()} is not the devnet's subnet ${this.keys.subnetId.toText()}` });
      return { kind: 'subnet_read_state' };
    }
    if (!inRange(target)) {
      return text({ status: 400, message: `Canister ${target.toText()} does not belong to this subnet (the devnet hosts canister ids in its certified range only)` });
    }
    return { kind: 'canister', endpoint: endpoint as 'query' | 'call' | 'read_state', target, mode: version === 'v2' ? 'async' : 'sync' };
  }

  /**
   * The answer `run(r, body)` is sure to give a body that begins with `prefix` (of `total` bytes, undefined
   * when not announced), if the prefix decides it: every endpoint with a body decodes its envelope first, so
   * a refusal of the prefix's CBOR is the request's answer. The server asks while the body arrives.
   */
  prefixRefusal(r: Route, prefix: Uint8Array, total: number | undefined): Reply | undefined {
    if (r.kind === 'status') return undefined;
    const e = envelopePrefixRefusal(prefix, total);
    return e === undefined ? undefined : text(e);
  }

  async run(r: Route, body: Uint8Array): Promise<Reply> {
    if (r.kind === 'status') return this.status();
    if (r.kind === 'subnet_read_state') return this.readState(body, undefined);
    if (r.endpoint === 'query') return this.query(body, r.target);
    if (r.endpoint === 'read_state') return this.readState(body, r.target);
    return this.call(body, r.target, r.mode);
  }

  /**
   * A certificate over `tree`: the same answer (but its time) within CERT_CACHE_NS is reused; otherwise,
   * when `limited`, the sender's and everyone's signature budgets are spent first (429 when empty).
   */
  private async certificate(tree: StateTree, sender: Principal, limited: boolean): Promise<Uint8Array | IcHttpError> {
    const key = treeKey(tree.root);
    const now = this.nowNs();
    const hit = this.certCache.get(key);
    if (hit !== undefined && now >= hit.at && now - hit.at < CERT_CACHE_NS) return hit.cert;
    if (limited) {
      const who = sender.toText();
      if (!this.certsPerSender.take(who)) {
        return { status: 429, message: `Too many certificates for ${who === ANONYMOUS ? 'anonymous callers' : who} (at most ${this.limits.certsPerSecondPerSender} a second); retry shortly.` };
      }
      if (!this.certsAll.take('all')) {
        this.certsPerSender.refund(who);
        return { status: 429, message: `Too many certificates requested of the devnet (at most ${this.limits.globalCertsPerSecond} a second); retry shortly.` };
      }
    }
    const cert = await certify(tree, this.keys);
    this.signatures++;
    if (this.certCache.size >= CERT_CACHE_ENTRIES) this.certCache.delete(this.certCache.keys().next().value!);
    this.certCache.delete(key);
    this.certCache.set(key, { cert, at: now });
    return cert;
  }

  private status(): Reply {
    return cbor({ impl_version: IMPL_VERSION, root_key: this.keys.rootKeyDer, replica_health_status: 'healthy', certified_height: 0n });
  }

  /** Content checks shared by query and call: the canister in the content is the URL's, and delegations allow it. */
  private checkTarget(env: Envelope<CallContent>, ecid: Principal): IcHttpError | undefined {
    const c = env.content;
    if (c.canisterId.toText() !== ecid.toText()) {
      return { status: 400, message: `Specified CanisterId ${c.canisterId.toText()} does not match effective canister id in URL ${ecid.toText()}` };
    }
    if (env.targets !== undefined && !env.targets.some((t) => t.toText() === c.canisterId.toText())) {
      return { status: 400, message: `Failed to authenticate request 0x${Buffer.from(env.requestId).toString('hex')} due to: Canister ${c.canisterId.toText()} is not one of the delegation targets` };
    }
    return undefined;
  }

  private rejection(code: number, message: string, errorCode = errorCodeOf(code, message)): RequestStatus {
    return { status: 'rejected', rejectCode: code, rejectMessage: message, errorCode };
  }

  private notFound(ecid: Principal): RequestStatus {
    return this.rejection(3, `Canister ${ecid.toText()} not found`, ErrorCode.CanisterNotFound);
  }

  private async query(body: Uint8Array, ecid: Principal): Promise<Reply> {
    const now = this.nowNs();
    const d = decodeEnvelope(body, 'query', now, this.minExpiryNs());
    if (!d.ok) return text(d.error);
    const env = d.value as Envelope<CallContent>;
    const t = this.checkTarget(env, ecid);
    if (t !== undefined) return text(t);
    const c = env.content;
    let result: RequestStatus;
    if (c.canisterId.toText() !== this.canisterId.toText()) result = this.notFound(c.canisterId);
    else {
      const r = await this.host.queryAsync(c.methodName, c.arg, { caller: c.sender.toUint8Array() });
      result = r.kind === 'reply' ? { status: 'replied', reply: r.bytes } : this.rejection(r.code, r.message);
    }
    // The node signs {status, reply | reject, timestamp, request_id} (spec "Query call" response signature).
    const timestamp = this.nowNs();
    const fields: Record<string, unknown> =
      result.status === 'replied'
        ? { status: 'replied', reply: { arg: result.reply } }
        : result.status === 'rejected'
          ? { status: 'rejected', reject_code: result.rejectCode, reject_message: result.rejectMessage, error_code: result.errorCode }
          : { status: 'rejected', reject_code: 5, reject_message: 'processing', error_code: ErrorCode.CanisterTrapped };
    const hash = hashOfMap({ ...fields, timestamp, request_id: env.requestId });
    const signature = this.keys.signNode(Uint8Array.from([...IC_RESPONSE_DOMAIN_SEPARATOR, ...hash]));
    return cbor({ ...fields, signatures: [{ timestamp, signature, identity: this.keys.nodeId.toUint8Array() }] });
  }

  /**
   * Envelopes expiring before this are refused whatever IC time says: a status is only evicted once the
   * floor (floorNs) has passed its window, so an envelope older than the last eviction may have run.
   */
  private minExpiryNs(): bigint {
    return this.evictedBelowNs - PERMITTED_DRIFT_NS;
  }
  private evictedBelowNs = 0n;

  private lastEvictMs = -Infinity;

  private evictExpired(): void {
    this.lastEvictMs = performance.now();
    const floor = this.floorNs();
    for (const [k, e] of this.statuses) {
      // Kept a drift's length past expiry, so a client polling at its expiry still reads the result.
      if (e.expiry + PERMITTED_DRIFT_NS < floor && e.state.status !== 'processing') this.deleteStatus(k);
    }
    if (floor > this.evictedBelowNs) this.evictedBelowNs = floor;
    this.seen?.compact(this.seenEntries(), this.statuses.size);
  }

  private *seenEntries(): Iterable<{ id: string; expiry: bigint; sender: string }> {
    for (const [id, e] of this.statuses) yield { id, expiry: e.expiry, sender: e.sender };
  }

  /** Why `sender` may not add a status now (429), or undefined. */
  private quotaRefusal(sender: string): IcHttpError | undefined {
    const mine = this.held.get(sender) ?? 0;
    const l = this.limits;
    if (sender === ANONYMOUS && mine >= l.maxAnonymousStatuses) {
      return { status: 429, message: `Anonymous callers hold ${mine} request statuses, the most they may (${l.maxAnonymousStatuses}); retry once older requests have expired, or sign your calls.` };
    }
    if (sender !== ANONYMOUS && mine >= l.maxStatusesPerSender) {
      return { status: 429, message: `${sender} holds ${mine} request statuses, the most one sender may (${l.maxStatusesPerSender}); retry once older requests have expired.` };
    }
    if (this.statuses.size >= MAX_REQUEST_STATUSES) return { status: 429, message: 'The devnet holds too many request statuses; retry once older requests have expired.' };
    return undefined;
  }

  private async call(body: Uint8Array, ecid: Principal, mode: 'sync' | 'async'): Promise<Reply> {
    const now = this.nowNs();
    const d = decodeEnvelope(body, 'call', now, this.minExpiryNs());
    if (!d.ok) return text(d.error);
    const env = d.value as Envelope<CallContent>;
    const t = this.checkTarget(env, ecid);
    if (t !== undefined) return text(t);
    const c = env.content;
    const key = Buffer.from(env.requestId).toString('hex');
    // Uncertified refusals (the ingress filter on the IC): the body carries the reject, nothing is recorded.
    const refuse = (s: Extract<RequestStatus, { status: 'rejected' }>): Reply =>
      cbor({ status: 'non_replicated_rejection', reject_code: s.rejectCode, reject_message: s.rejectMessage, error_code: s.errorCode });
    if (c.canisterId.toText() !== this.canisterId.toText()) return refuse(this.notFound(c.canisterId) as Extract<RequestStatus, { status: 'rejected' }>);

    let entry = this.statuses.get(key);
    const sender = c.sender.toText();
    const first = entry === undefined;
    if (entry === undefined) {
      // A full quota first tries to evict, at most once a second: the scan covers every status, and a
      // caller over its quota must not make each of its refusals cost one.
      if (this.quotaRefusal(sender) !== undefined && performance.now() - this.lastEvictMs > 1_000) this.evictExpired();
      const q = this.quotaRefusal(sender);
      if (q !== undefined) return text(q);
      let finish!: () => void;
      const created: StatusEntry = { sender, expiry: c.ingressExpiry, state: { status: 'processing' }, done: new Promise((r) => (finish = r)) };
      entry = created;
      this.addStatus(key, created);
      // Recorded before it runs: after a crash or restart the same envelope is not run again.
      this.seen?.record({ id: key, expiry: c.ingressExpiry, sender });
      let r: CallResult;
      try {
        r = await this.host.update(c.methodName, c.arg, { caller: c.sender.toUint8Array() });
      } catch (e) {
        this.deleteStatus(key);
        this.seen?.forget(key);
        finish();
        throw e;
      }
      if (r.kind === 'reject' && r.uncertified === true) {
        this.deleteStatus(key);
        this.seen?.forget(key);
        finish();
        return refuse(this.rejection(r.code, r.message) as Extract<RequestStatus, { status: 'rejected' }>);
      }
      created.state = r.kind === 'reply' ? { status: 'replied', reply: r.bytes } : this.rejection(r.code, r.message);
      finish();
    } else {
      // The same request again (a retry): never executed twice; answered from its status.
      await entry.done;
    }
    if (mode === 'async') return { status: 202, body: '' };
    const tree = this.baseTree();
    this.addRequestStatus(tree, env.requestId, entry.state);
    // The first answer of a call that ran is never refused; repeats spend the sender's certificate budget.
    const cert = await this.certificate(tree, c.sender, !first);
    if (!(cert instanceof Uint8Array)) return text(cert);
    // `status: "replied"` tags the synchronous answer (spec; the Rust agent deserialises by it).
    return cbor({ status: 'replied', certificate: cert });
  }

  private baseTree(): StateTree {
    return new StateTree().set(['time'], lebEncode(this.nowNs()));
  }

  private addRequestStatus(tree: StateTree, id: Uint8Array, s: RequestStatus): void {
    const p = ['request_status', id] as const;
    tree.set([...p, 'status'], new TextEncoder().encode(s.status));
    if (s.status === 'replied') tree.set([...p, 'reply'], s.reply);
    if (s.status === 'rejected') {
      tree.set([...p, 'reject_code'], lebEncode(s.rejectCode));
      tree.set([...p, 'reject_message'], new TextEncoder().encode(s.rejectMessage));
      tree.set([...p, 'error_code'], new TextEncoder().encode(s.errorCode));
    }
  }

  private addSubnet(tree: StateTree): void {
    const sid = this.keys.subnetId.toUint8Array();
    tree.set(['subnet', sid, 'public_key'], this.keys.rootKeyDer);
    tree.set(['subnet', sid, 'canister_ranges'], new Uint8Array(Cbor.encode([[...CANISTER_RANGE]])));
    tree.set(['subnet', sid, 'node', this.keys.nodeId.toUint8Array(), 'public_key'], this.keys.nodeKeyDer);
  }

  /** read_state: validates every path first (IC: one bad path refuses the request), then certifies the answer. */
  private async readState(body: Uint8Array, ecid: Principal | undefined): Promise<Reply> {
    const now = this.nowNs();
    const d = decodeEnvelope(body, 'read_state', now, this.minExpiryNs());
    if (!d.ok) return text(d.error);
    const env = d.value as Envelope<ReadStateContent>;
    const c = env.content;
    if (ecid !== undefined && env.targets !== undefined && !env.targets.some((t) => t.toText() === ecid.toText())) {
      return text({ status: 400, message: `Failed to authenticate request 0x${Buffer.from(env.requestId).toString('hex')} due to: Canister ${ecid.toText()} is not one of the delegation targets` });
    }
    const tree = this.baseTree();
    const label = (b: Uint8Array | undefined): string => (b === undefined ? '' : Buffer.from(b).toString('latin1'));
    let requestId: string | undefined;
    for (const path of c.paths) {
      const head = label(path[0]);
      if (head === 'time' && path.length === 1) continue;
      if (head === 'subnet') {
        this.addSubnet(tree);
        continue;
      }
      if (head === 'canister_ranges' && path.length <= 2) {
        const sid = this.keys.subnetId.toUint8Array();
        if (path.length === 1 || Buffer.from(path[1]!).equals(Buffer.from(sid))) tree.set(['canister_ranges', sid, CANISTER_RANGE[0]], new Uint8Array(Cbor.encode([[...CANISTER_RANGE]])));
        continue;
      }
      if (ecid !== undefined && head === 'request_status' && path.length >= 2 && path.length <= 3) {
        const id = Buffer.from(path[1]!).toString('hex');
        if (requestId !== undefined && requestId !== id) return text({ status: 400, message: 'Can only request a single request ID in request_status paths.' });
        requestId = id;
        const e = this.statuses.get(id);
        if (e === undefined) continue;
        if (e.sender !== c.sender.toText()) return text({ status: 403, message: 'The user tries to access Request ID not signed by the caller.' });
        this.addRequestStatus(tree, path[1]!, e.state);
        continue;
      }
      if (ecid !== undefined && head === 'canister' && path.length >= 3) {
        const cid = Principal.fromUint8Array(path[1]!);
        if (cid.toText() !== ecid.toText()) {
          return text({ status: 400, message: `Effective principal id in URL ${ecid.toText()} does not match requested principal id: ${cid.toText()}.` });
        }
        if (cid.toText() !== this.canisterId.toText()) continue;
        const what = label(path[2]);
        if (what === 'controllers' && path.length === 3) {
          tree.set(['canister', path[1]!, 'controllers'], new Uint8Array(Cbor.encode(this.host.controllers.map((p) => p.toUint8Array()))));
          continue;
        }
        if (what === 'module_hash' && path.length === 3) {
          tree.set(['canister', path[1]!, 'module_hash'], this.host.moduleHash);
          continue;
        }
        if (what === 'metadata' && path.length === 4) continue; // no public metadata sections: absent
      }
      return text({ status: 404, message: `Invalid path requested: /${path.map((l) => Buffer.from(l).toString('hex')).join('/')}` });
    }
    const cert = await this.certificate(tree, c.sender, true);
    return cert instanceof Uint8Array ? cbor({ certificate: cert }) : text(cert);
  }

  /** For the devnet's report: how many request statuses are held. */
  get heldStatuses(): number {
    return this.statuses.size;
  }

  /** Drops statuses past their window and idle rate buckets (called periodically by the server). */
  sweep(): void {
    this.evictExpired();
    this.certsPerSender.sweep();
  }

  /** Closes the data folder's log. */
  close(): void {
    this.seen?.close();
  }
}
