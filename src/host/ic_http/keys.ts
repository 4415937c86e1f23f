// The devnet's stand-in for an IC subnet's keys: a BLS12-381 threshold key (here one key, no shares) that
// signs certificates and is published as the root key, and one node's Ed25519 key that signs query
// responses and is listed in the certified subnet state. Generated once per data folder and kept there, so a
// client that fetched the root key keeps verifying replies after a restart.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { Ed25519PublicKey } from '@icp-sdk/core/agent';
import { Principal } from '@icp-sdk/core/principal';

/** DER prefix of an IC BLS12-381 G2 public key (interface spec, "Certificate"): 96 key bytes follow. */
const BLS_DER_PREFIX = Buffer.from('308182301d060d2b0601040182dc7c0503010201060c2b0601040182dc7c05030201036100', 'hex');

export const KEYS_FILE = 'ic-keys.json';

interface KeysFile {
  readonly version: 1;
  /** BLS12-381 secret key (hex, 32 bytes). */
  readonly rootSecretKey: string;
  /** Ed25519 secret key of the one node (hex, 32 bytes). */
  readonly nodeSecretKey: string;
}

export class SubnetKeys {
  /** The root key as the agent expects it from /api/v2/status: DER of the G2 public key. */
  readonly rootKeyDer: Uint8Array;
  /** The subnet id of a subnet whose key is the root key: the self-authenticating principal of that key. */
  readonly subnetId: Principal;
  readonly nodeKeyDer: Uint8Array;
  readonly nodeId: Principal;

  constructor(
    private readonly rootSecret: Uint8Array,
    private readonly nodeSecret: Uint8Array,
  ) {
    const pk = bls12_381.shortSignatures.getPublicKey(rootSecret).toBytes(true);
    this.rootKeyDer = Uint8Array.from([...BLS_DER_PREFIX, ...pk]);
    this.subnetId = Principal.selfAuthenticating(this.rootKeyDer);
    this.nodeKeyDer = new Uint8Array(Ed25519PublicKey.fromRaw(ed25519.getPublicKey(nodeSecret)).toDer());
    this.nodeId = Principal.selfAuthenticating(this.nodeKeyDer);
  }

  static generate(): SubnetKeys {
    return new SubnetKeys(bls12_381.utils.randomSecretKey(), ed25519.utils.randomSecretKey());
  }

  /** Loads the keys of a data folder's file, or creates and saves them (owner-only file mode). */
  static loadOrCreate(path: string): SubnetKeys {
    if (existsSync(path)) {
      const f = JSON.parse(readFileSync(path, 'utf8')) as Partial<KeysFile>;
      if (f.version !== 1 || typeof f.rootSecretKey !== 'string' || typeof f.nodeSecretKey !== 'string') {
        throw new Error(`${path}: not an IC key file of this devnet (delete it to generate new keys; clients must then fetch the new root key)`);
      }
      return new SubnetKeys(Buffer.from(f.rootSecretKey, 'hex'), Buffer.from(f.nodeSecretKey, 'hex'));
    }
    const keys = SubnetKeys.generate();
    const f: KeysFile = { version: 1, rootSecretKey: Buffer.from(keys.rootSecret).toString('hex'), nodeSecretKey: Buffer.from(keys.nodeSecret).toString('hex') };
    // Written aside then renamed: a crash never leaves a half-written key file.
    writeFileSync(`${path}.tmp`, JSON.stringify(f), { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
    return keys;
  }

  /** BLS signature (G1, 48 bytes) over `message`, as the IC's threshold signature over a certified state root. */
  signRoot(message: Uint8Array): Uint8Array {
    const sigs = bls12_381.shortSignatures;
    return sigs.sign(sigs.hash(message), this.rootSecret).toBytes(true);
  }

  /** The node's Ed25519 signature (query responses). */
  signNode(message: Uint8Array): Uint8Array {
    return ed25519.sign(message, this.nodeSecret);
  }
}
