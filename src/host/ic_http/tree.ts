// Certified state as the IC publishes it (interface spec, "Certification"): a labeled tree turned into a
// hash tree (sorted labels, binary forks), whose root hash the subnet key signs. The hash-tree node types,
// the root-hash reconstruction and the domain separator are the agent's own exports, so what is signed here
// is exactly what the agent recomputes.
import { Cbor, IC_STATE_ROOT_DOMAIN_SEPARATOR, NodeType, reconstruct, type HashTree } from '@icp-sdk/core/agent';
export { lebEncode } from '@icp-sdk/core/candid';
import { toHex } from '../../core/codec/bytes.js';
import type { SubnetKeys } from './keys.js';

export type LabeledTree = Uint8Array | Map<string, LabeledTree>;

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** A mutable labeled tree keyed by hex labels (so byte labels and text labels share one ordering). */
export class StateTree {
  readonly root = new Map<string, LabeledTree>();

  /** Sets the leaf at `path` (labels as text or bytes), creating the inner nodes. */
  set(path: readonly (string | Uint8Array)[], value: Uint8Array): this {
    let node = this.root;
    path.forEach((label, i) => {
      const k = toHex(typeof label === 'string' ? utf8(label) : label);
      if (i === path.length - 1) {
        node.set(k, value);
        return;
      }
      let next = node.get(k);
      if (!(next instanceof Map)) {
        next = new Map();
        node.set(k, next);
      }
      node = next;
    });
    return this;
  }

  /** An inner node with no children (a subtree present but empty, e.g. a known label with nothing under it). */
  setEmpty(path: readonly (string | Uint8Array)[]): this {
    let node = this.root;
    for (const label of path) {
      const k = toHex(typeof label === 'string' ? utf8(label) : label);
      let next = node.get(k);
      if (!(next instanceof Map)) {
        next = new Map();
        node.set(k, next);
      }
      node = next;
    }
    return this;
  }
}

export function toHashTree(t: LabeledTree): HashTree {
  if (t instanceof Uint8Array) return [NodeType.Leaf, t] as HashTree;
  const entries = [...t.entries()]
    .map(([k, v]) => [Buffer.from(k, 'hex'), v] as const)
    // Labels in lexicographic byte order (spec), not the agent's length-first `compare`.
    .sort((a, b) => Buffer.compare(a[0], b[0]));
  const nodes = entries.map(([label, sub]) => [NodeType.Labeled, new Uint8Array(label), toHashTree(sub)] as HashTree);
  return forks(nodes);
}

/** Balanced binary forks over the sorted labeled nodes (any shape is valid; balanced keeps lookups short). */
function forks(nodes: HashTree[]): HashTree {
  if (nodes.length === 0) return [NodeType.Empty] as HashTree;
  if (nodes.length === 1) return nodes[0]!;
  const mid = Math.ceil(nodes.length / 2);
  return [NodeType.Fork, forks(nodes.slice(0, mid)), forks(nodes.slice(mid))] as HashTree;
}

/** A certificate `{tree, signature}` (CBOR, self-described) over `state`, signed with the subnet (root) key. */
export async function certify(state: StateTree, keys: SubnetKeys): Promise<Uint8Array> {
  const tree = toHashTree(state.root);
  const root = await reconstruct(tree);
  const signature = keys.signRoot(Uint8Array.from([...IC_STATE_ROOT_DOMAIN_SEPARATOR, ...root]));
  return new Uint8Array(Cbor.encode({ tree, signature }));
}
