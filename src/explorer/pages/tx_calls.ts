// The transaction page's "Call tree" tab: geth's callTracer answer for the transaction (run on demand by the
// gateway over the archive), every frame with its kind (CALL ... CREATE2, SELFDESTRUCT), the value it moved, the
// call decoded with the callee's verified ABI, gas used, and a revert marked on the frame where it happened (the
// frames below it are shown as undone with it). At most MAX_TREE_FRAMES frames are drawn.
import type { Abi } from 'viem';
import { decodeInput, decodeRevert, type DecodedCall } from './abi.js';
import { addressLink, formatEth, parseHexBytes } from './format.js';
import { html, type Html } from './html.js';
import type { PagesDeps, VerifiedContractInfo } from './common.js';
import { fetchTrace } from './traces.js';

/** Frames drawn at most; a larger tree is cut there with a note (its JSON is bounded by TRACE_MAX_BYTES). */
export const MAX_TREE_FRAMES = 2000;
/** Distinct contracts whose verified ABI is looked up for one tree. */
const MAX_ABI_LOOKUPS = 64;
/** Characters of one decoded argument shown in the tree (the input itself can be megabytes). */
const MAX_ARG_CHARS = 256;

/** One frame of geth's callTracer answer (docs/traces.md). */
export interface CallFrameJson {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas: string;
  gasUsed: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrameJson[];
}

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function quantityOf(v: unknown): bigint {
  const s = str(v);
  return /^0x[0-9a-fA-F]{1,64}$/.test(s) ? BigInt(s) : 0n;
}

/** 0x-hex as bytes; anything else as none. */
export function hexBytes(v: unknown): Uint8Array {
  const s = str(v);
  return /^0x(?:[0-9a-fA-F]{2})*$/.test(s) ? new Uint8Array(Buffer.from(s.slice(2), 'hex')) : new Uint8Array(0);
}

const addressBytes = (v: unknown): Uint8Array | undefined => parseHexBytes(str(v), 20);

type Verified = (a: Uint8Array) => Promise<VerifiedContractInfo | undefined>;

/** The verified-contract lookup of one page: cached per address, and bounded in how many it asks. */
function abiLookup(deps: PagesDeps): Verified {
  const cache = new Map<string, Promise<VerifiedContractInfo | undefined>>();
  return (a) => {
    const k = Buffer.from(a).toString('hex');
    let p = cache.get(k);
    if (p === undefined) {
      p = cache.size >= MAX_ABI_LOOKUPS ? Promise.resolve(undefined) : deps.verified(a).catch(() => undefined);
      cache.set(k, p);
    }
    return p;
  };
}

const clip = (s: string): string => (s.length > MAX_ARG_CHARS ? `${s.slice(0, MAX_ARG_CHARS)}… (${s.length} characters)` : s);

function decodedView(d: DecodedCall): Html {
  return html`<span class="mono fn">${d.name}(${d.args.map((a, i) => html`${i === 0 ? '' : ', '}<span title="${a.type}">${a.name}</span>=${clip(a.value)}`)})</span>`;
}

function named(a: Uint8Array | undefined, v: VerifiedContractInfo | undefined): Html {
  return html`${addressLink(a)}${v === undefined ? '' : html` <span class="badge" title="verified contract">${v.contractName}</span>`}`;
}

interface Drawn {
  count: number;
  cut: boolean;
}

async function frameView(f: CallFrameJson, path: readonly number[], parentFailed: boolean, verified: Verified, drawn: Drawn): Promise<Html> {
  drawn.count++;
  const type = str(f.type);
  const from = addressBytes(f.from);
  const to = addressBytes(f.to);
  const value = quantityOf(f.value);
  const failed = typeof f.error === 'string';
  const input = hexBytes(f.input);
  const isCreate = type === 'CREATE' || type === 'CREATE2';
  // A DELEGATECALL reports its caller's value, which it does not move.
  const movesValue = type !== 'DELEGATECALL' && type !== 'STATICCALL';
  const [vFrom, vTo] = await Promise.all([from === undefined ? undefined : verified(from), to === undefined ? undefined : verified(to)]);
  const abi: Abi | undefined = vTo?.abi;
  let call: Html = html``;
  if (isCreate) call = html`<span class="muted">init code ${input.length} bytes</span>`;
  else if (type !== 'SELFDESTRUCT' && input.length > 0) {
    const d = abi === undefined ? undefined : decodeInput(abi, input);
    call = d !== undefined ? decodedView(d) : input.length >= 4 ? html`<span class="mono muted">${`0x${Buffer.from(input.subarray(0, 4)).toString('hex')}`}…</span>` : html``;
  }
  let error: Html = html``;
  if (failed) {
    const custom = f.revertReason === undefined && typeof f.output === 'string' ? decodeRevert(abi, f.output) : undefined;
    error = html`<div class="bad frame-error">✗ ${clip(str(f.error))}${typeof f.revertReason === 'string' ? html`: <span class="mono">${clip(f.revertReason)}</span>` : ''}${custom === undefined ? '' : html`: ${decodedView(custom)}`}</div>`;
  }
  const children = Array.isArray(f.calls) ? f.calls : [];
  const kids: Html[] = [];
  for (let i = 0; i < children.length; i++) {
    if (drawn.count >= MAX_TREE_FRAMES) {
      drawn.cut = true;
      break;
    }
    kids.push(await frameView(children[i]!, [...path, i], parentFailed || failed, verified, drawn));
  }
  const cls = `frame${failed ? ' failed' : ''}${parentFailed ? ' undone' : ''}`;
  const arrow = type === 'SELFDESTRUCT' ? html` → beneficiary ` : isCreate ? html` → new contract ` : html` → `;
  return html`<li class="${cls}" data-type="${type}" data-trace="${path.join('.')}"${parentFailed ? html` title="undone: a frame above it reverted"` : ''}>
<span class="badge kind">${type}</span> ${named(from, vFrom)}${arrow}${named(to, vTo)}${value > 0n && movesValue ? html` <span class="value ok">${formatEth(value)}</span>` : ''}
${call} <span class="muted">· gas used ${quantityOf(f.gasUsed).toLocaleString('en-US')}</span>${error}${kids.length === 0 ? '' : html`<ul>${kids}</ul>`}</li>`;
}

/** The tree as HTML, or the reason it cannot be shown. */
export async function callTreeSection(deps: PagesDeps, txHash: string): Promise<{ status: number; body: Html }> {
  const t = await fetchTrace<CallFrameJson>(deps, txHash, 'callTracer', {});
  if (!t.ok) return { status: t.status, body: html`<div class="notice" id="trace-notice">${t.message}</div>` };
  if (t.result === null || typeof t.result !== 'object') return { status: 200, body: html`<div class="notice" id="trace-notice">The gateway does not know this transaction.</div>` };
  const drawn: Drawn = { count: 0, cut: false };
  const tree = await frameView(t.result, [], false, abiLookup(deps), drawn);
  return {
    status: 200,
    body: html`<p class="muted">Re-executed by the archive (stock EthereumJS, geth's callTracer). A frame marked ✗ is where a revert happened; frames under it were undone with it. Value is shown where a frame moved it.</p>
${drawn.cut ? html`<div class="notice" id="trace-cut">This call tree has more than ${MAX_TREE_FRAMES} frames; the first ${MAX_TREE_FRAMES} (depth first) are shown. Ask the gateway with <code>debug_traceTransaction</code> for all of it.</div>` : ''}
<ul class="tree" id="call-tree">${tree}</ul>`,
  };
}
