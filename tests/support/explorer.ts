// Explorer test support: the fixtures compiled as a developer's tool would (solc-js standard JSON), the rows the
// indexer writes for a transaction (read back from the chain's JSON-RPC, as the indexer's export carries them),
// and small HTTP helpers for the three verification APIs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Queryable } from '../../src/indexer/db.js';
import { ROOT } from './e2e.js';

const require = createRequire(import.meta.url);
export const EXPLORER_FIXTURES = join(ROOT, 'tests', 'fixtures', 'explorer');

export interface StdJson {
  language: 'Solidity';
  sources: Record<string, { content: string }>;
  settings: Record<string, unknown>;
}

export interface Compiled {
  abi: unknown[];
  bytecode: `0x${string}`;
  deployedBytecode: `0x${string}`;
}

export function fixtureSource(file: string): string {
  return readFileSync(join(EXPLORER_FIXTURES, file), 'utf8');
}

/**
 * Contract M (file M.sol) whose admin() returns `admin` (40 hex digits), read from a literal shaped like solc's
 * metadata trailer (a CBOR map with "ipfs" and "solc", then its length) around the address: the source an
 * attacker submits to pass off M's code as verified with a different admin.
 */
export function plantedTrailerSource(admin: string): string {
  const hash = `1220${admin}${'00'.repeat(12)}`;
  const blob = `a2646970667358${'22'}${hash}64736f6c6343000825${'0033'}`;
  return [
    '// SPDX-License-Identifier: MIT',
    'pragma solidity ^0.8.0;',
    'contract M {',
    '    function admin() external pure returns (address a) {',
    `        bytes memory b = hex"${blob}";`,
    '        assembly { a := shr(96, mload(add(b, 42))) }',
    '    }',
    '}',
  ].join('\n');
}

/** A standard-JSON input over fixture files (named as given), optimizer on, Prague. */
export function stdJson(files: Record<string, string>, extra: Record<string, unknown> = {}): StdJson {
  return {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(files).map(([name, content]) => [name, { content }])),
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'prague', ...extra },
  };
}

/** Compiles with an installed solc-js (module `solc` or an alias such as `solc-0.5.17`), as forge/Hardhat would. */
export function compile(input: StdJson, file: string, name: string, module = 'solc'): Compiled {
  const solc = require(module) as { compile(i: string): string };
  const full = { ...input, settings: { ...input.settings, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } } } };
  const out = JSON.parse(solc.compile(JSON.stringify(full))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const c = out.contracts[file]![name]!;
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}` };
}

async function rpcCall(url: string, method: string, params: unknown[]): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const b = (h: string | null | undefined): Uint8Array | null => (h === null || h === undefined ? null : Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex')));
const n = (h: string | null | undefined): string | null => (h === null || h === undefined ? null : BigInt(h).toString());

/** Writes the block, transaction and receipt rows of `txHash` the way the indexer does (src/indexer/schema.ts). */
export async function indexTransaction(db: Queryable, rpcUrl: string, txHash: string): Promise<void> {
  const tx = await rpcCall(rpcUrl, 'eth_getTransactionByHash', [txHash]);
  const r = await rpcCall(rpcUrl, 'eth_getTransactionReceipt', [txHash]);
  const blk = await rpcCall(rpcUrl, 'eth_getBlockByNumber', [r.blockNumber, false]);
  await db.query(
    `INSERT INTO blocks (number, hash, parent_hash, timestamp, gas_used, gas_limit, base_fee, tx_count, miner, state_root, transactions_root, receipts_root, logs_bloom, size)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT (number) DO NOTHING`,
    [
      BigInt(blk.number),
      b(blk.hash),
      b(blk.parentHash),
      BigInt(blk.timestamp),
      BigInt(blk.gasUsed),
      BigInt(blk.gasLimit),
      n(blk.baseFeePerGas ?? '0x0'),
      blk.transactions.length,
      b(blk.miner),
      b(blk.stateRoot),
      b(blk.transactionsRoot),
      b(blk.receiptsRoot),
      b(blk.logsBloom),
      Number(BigInt(blk.size ?? '0x0')),
    ],
  );
  await db.query(
    `INSERT INTO txs (eth_tx_hash, tx_id, block_number, tx_index, type, origin, from_address, to_address, value, nonce, gas_limit, gas_price,
       max_fee_per_gas, max_priority_fee_per_gas, input, receipt_status)
     VALUES ($1, $2, $3, $4, $5, 'EthSigned', $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT DO NOTHING`,
    [
      b(txHash),
      b(txHash),
      BigInt(tx.blockNumber),
      Number(BigInt(tx.transactionIndex)),
      Number(BigInt(tx.type ?? '0x0')),
      b(tx.from),
      b(tx.to),
      n(tx.value),
      BigInt(tx.nonce),
      BigInt(tx.gas),
      n(tx.gasPrice),
      n(tx.maxFeePerGas),
      n(tx.maxPriorityFeePerGas),
      b(tx.input),
      Number(BigInt(r.status)),
    ],
  );
  await db.query(
    `INSERT INTO receipts (tx_hash, block_number, status, gas_used, cumulative_gas_used, effective_gas_price, contract_address)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
    [b(txHash), BigInt(r.blockNumber), Number(BigInt(r.status)), BigInt(r.gasUsed), BigInt(r.cumulativeGasUsed), n(r.effectiveGasPrice), b(r.contractAddress)],
  );
}

export interface EtherscanAnswer {
  status: string;
  message: string;
  result: any;
}

/** A POST to the Etherscan-compatible /api with form fields, as forge and hardhat-verify send them. */
export async function etherscanPost(apiUrl: string, fields: Record<string, string>, query: Record<string, string> = {}): Promise<{ http: number; body: EtherscanAnswer }> {
  const u = new URL(apiUrl);
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
  const res = await fetch(u, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  return { http: res.status, body: (await res.json()) as EtherscanAnswer };
}

export async function etherscanGet(apiUrl: string, query: Record<string, string>): Promise<{ http: number; body: EtherscanAnswer }> {
  const u = new URL(apiUrl);
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
  const res = await fetch(u);
  return { http: res.status, body: (await res.json()) as EtherscanAnswer };
}

export async function getJson(url: string): Promise<{ http: number; body: any }> {
  const res = await fetch(url);
  return { http: res.status, body: await res.json() };
}

export async function postJson(url: string, value: unknown): Promise<{ http: number; body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof value === 'string' ? value : JSON.stringify(value) });
  return { http: res.status, body: await res.json() };
}

/** Polls until `done` says the answer is final (bounded). */
export async function pollUntil<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > until) throw new Error(`not final within ${timeoutMs} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
