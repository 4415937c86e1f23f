// The explorer's tables in the indexer's database (component 'explorer' of src/indexer/migrate.ts): the
// verification jobs of all three APIs and the verified contracts. Append a migration for any change; never
// edit one that has shipped. It also reads the indexer's tables (receipts, txs) for creation transactions.
import type { Db, Queryable } from '../indexer/db.js';
import { fromHex, toHex } from '../gateway/hex.js';
import type { Migration } from '../indexer/migrate.js';
import type { MatchKind } from './match.js';
import type { VerifyApi, VerifyRequest } from './request.js';

export const EXPLORER_COMPONENT = 'explorer';

export const EXPLORER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'verification jobs and verified contracts',
    sql: `
CREATE TABLE explorer_verify_jobs (
  id text PRIMARY KEY,
  api text NOT NULL CHECK (api IN ('spec', 'etherscan', 'sourcify')),
  address bytea NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'verified', 'failed')),
  request jsonb NOT NULL,
  runtime_match text CHECK (runtime_match IN ('full', 'partial')),
  creation_match text CHECK (creation_match IN ('full', 'partial')),
  error_code text,
  error_message text,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz
);
CREATE INDEX explorer_verify_jobs_open ON explorer_verify_jobs (created_at) WHERE status IN ('queued', 'running');

CREATE TABLE explorer_verified_contracts (
  address bytea PRIMARY KEY,
  contract_path text NOT NULL,
  contract_name text NOT NULL,
  compiler_version text NOT NULL,
  code_format text NOT NULL,
  std_json_input jsonb NOT NULL,
  abi jsonb NOT NULL,
  runtime_match text NOT NULL CHECK (runtime_match IN ('full', 'partial')),
  creation_match text CHECK (creation_match IN ('full', 'partial')),
  constructor_args bytea,
  creation_tx_hash bytea,
  license_type text,
  job_id text NOT NULL,
  verified_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    version: 2,
    name: 'verification jobs: the submitting client; failed jobs keep no sources',
    sql: `
ALTER TABLE explorer_verify_jobs ADD COLUMN client text NOT NULL DEFAULT '';
CREATE INDEX explorer_verify_jobs_open_client ON explorer_verify_jobs (client) WHERE status IN ('queued', 'running');
UPDATE explorer_verify_jobs SET request = jsonb_set(request, '{input,sources}', '{}'::jsonb) WHERE status = 'failed';
`,
  },
];

/** A failed job's request without its sources (nothing reads them again; they may be megabytes). */
const DROP_SOURCES = `request = jsonb_set(request, '{input,sources}', '{}'::jsonb)`;

export type JobStatus = 'queued' | 'running' | 'verified' | 'failed';

export interface JobRow {
  readonly id: string;
  readonly api: VerifyApi;
  readonly address: string;
  readonly status: JobStatus;
  readonly request: VerifyRequest;
  readonly runtimeMatch: MatchKind | null;
  readonly creationMatch: MatchKind | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly attempts: number;
  readonly createdAt: Date;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
}

export interface VerifiedContract {
  readonly address: string;
  readonly contractPath: string;
  readonly contractName: string;
  readonly compilerVersion: string;
  readonly codeFormat: string;
  readonly input: VerifyRequest['input'];
  readonly abi: unknown[];
  readonly runtimeMatch: MatchKind;
  readonly creationMatch: MatchKind | null;
  /** Lowercase hex without 0x; null when unknown (created by a contract and none given). */
  readonly constructorArgs: string | null;
  readonly creationTxHash: string | null;
  readonly licenseType: string | null;
  readonly jobId: string;
  readonly verifiedAt: Date;
}

/** Etherscan's getcontractcreation record; `contractFactory` only when a contract created it. */
export interface ContractCreation {
  readonly contractCreator: string;
  readonly txHash: string;
  readonly blockNumber: bigint;
  readonly contractFactory?: string;
}

export interface CreationTx {
  readonly txHash: string;
  readonly from: string;
  readonly blockNumber: bigint;
  /** Lowercase hex without 0x. */
  readonly input: string;
}

const toDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));
const toDateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : toDate(v));
const json = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

function jobFromRow(r: Record<string, unknown>): JobRow {
  return {
    id: r.id as string,
    api: r.api as VerifyApi,
    address: `0x${toHex(r.address as Uint8Array)}`,
    status: r.status as JobStatus,
    request: json<VerifyRequest>(r.request),
    runtimeMatch: (r.runtime_match as MatchKind | null) ?? null,
    creationMatch: (r.creation_match as MatchKind | null) ?? null,
    errorCode: (r.error_code as string | null) ?? null,
    errorMessage: (r.error_message as string | null) ?? null,
    attempts: Number(r.attempts),
    createdAt: toDate(r.created_at),
    startedAt: toDateOrNull(r.started_at),
    finishedAt: toDateOrNull(r.finished_at),
  };
}

function contractFromRow(r: Record<string, unknown>): VerifiedContract {
  return {
    address: `0x${toHex(r.address as Uint8Array)}`,
    contractPath: r.contract_path as string,
    contractName: r.contract_name as string,
    compilerVersion: r.compiler_version as string,
    codeFormat: r.code_format as string,
    input: json(r.std_json_input),
    abi: json(r.abi),
    runtimeMatch: r.runtime_match as MatchKind,
    creationMatch: (r.creation_match as MatchKind | null) ?? null,
    constructorArgs: r.constructor_args === null ? null : toHex(r.constructor_args as Uint8Array),
    creationTxHash: r.creation_tx_hash === null ? null : `0x${toHex(r.creation_tx_hash as Uint8Array)}`,
    licenseType: (r.license_type as string | null) ?? null,
    jobId: r.job_id as string,
    verifiedAt: toDate(r.verified_at),
  };
}

/** Jobs left running by a crash run again, up to this many attempts in all; then they fail. */
export const MAX_ATTEMPTS = 3;
/** Finished jobs (their request holds the sources) are deleted this long after they finish; verified contracts stay. */
export const FINISHED_JOB_RETENTION_DAYS = 30;

export class ExplorerStore {
  constructor(readonly db: Db) {}

  async insertJob(id: string, req: VerifyRequest, client = ''): Promise<void> {
    await this.db.query('INSERT INTO explorer_verify_jobs (id, api, address, status, request, client) VALUES ($1, $2, $3, $4, $5, $6)', [
      id,
      req.api,
      fromHex(req.address),
      'queued',
      JSON.stringify(req),
      client,
    ]);
  }

  /** Jobs queued or running: all of them, or those `client` submitted. */
  async openJobCount(client?: string): Promise<number> {
    const r =
      client === undefined
        ? await this.db.query<{ n: bigint }>("SELECT count(*) AS n FROM explorer_verify_jobs WHERE status IN ('queued', 'running')")
        : await this.db.query<{ n: bigint }>("SELECT count(*) AS n FROM explorer_verify_jobs WHERE status IN ('queued', 'running') AND client = $1", [client]);
    return Number(r.rows[0]?.n ?? 0n);
  }

  /** Claims the oldest queued job (marks it running, counts the attempt). */
  async claimNext(): Promise<JobRow | undefined> {
    const r = await this.db.query(
      `UPDATE explorer_verify_jobs SET status = 'running', started_at = now(), attempts = attempts + 1
       WHERE id = (SELECT id FROM explorer_verify_jobs WHERE status = 'queued' ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
    );
    return r.rows[0] === undefined ? undefined : jobFromRow(r.rows[0]);
  }

  /** After a crash or restart: jobs that were running are queued again; those out of attempts fail. */
  async recover(): Promise<{ requeued: number; abandoned: number }> {
    const abandoned = await this.db.query(
      `UPDATE explorer_verify_jobs SET status = 'failed', finished_at = now(), error_code = 'internal_error', ${DROP_SOURCES},
         error_message = 'verification stopped ${MAX_ATTEMPTS} times (crash or restart) and was given up'
       WHERE status = 'running' AND attempts >= $1`,
      [MAX_ATTEMPTS],
    );
    const requeued = await this.db.query("UPDATE explorer_verify_jobs SET status = 'queued', started_at = NULL WHERE status = 'running'");
    return { requeued: requeued.affected, abandoned: abandoned.affected };
  }

  /** Deletes finished jobs older than the retention; answers how many. */
  async pruneFinished(days = FINISHED_JOB_RETENTION_DAYS): Promise<number> {
    const r = await this.db.query(
      "DELETE FROM explorer_verify_jobs WHERE status IN ('verified', 'failed') AND finished_at < now() - make_interval(days => $1)",
      [days],
    );
    return r.affected;
  }

  async getJob(id: string): Promise<JobRow | undefined> {
    const r = await this.db.query('SELECT * FROM explorer_verify_jobs WHERE id = $1', [id]);
    return r.rows[0] === undefined ? undefined : jobFromRow(r.rows[0]);
  }

  async failJob(id: string, code: string, message: string): Promise<void> {
    await this.db.query(`UPDATE explorer_verify_jobs SET status = 'failed', finished_at = now(), error_code = $2, error_message = $3, ${DROP_SOURCES} WHERE id = $1`, [
      id,
      code,
      message,
    ]);
  }

  /**
   * Records a verified contract and finishes its job in one transaction. A contract already fully verified
   * keeps its record; a partial one is replaced by a full match.
   */
  async finishVerified(id: string, c: Omit<VerifiedContract, 'verifiedAt' | 'jobId'>): Promise<void> {
    await this.db.transaction(async (tx: Queryable) => {
      await tx.query(
        `INSERT INTO explorer_verified_contracts (address, contract_path, contract_name, compiler_version, code_format, std_json_input, abi,
           runtime_match, creation_match, constructor_args, creation_tx_hash, license_type, job_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
         ON CONFLICT (address) DO UPDATE SET contract_path = EXCLUDED.contract_path, contract_name = EXCLUDED.contract_name,
           compiler_version = EXCLUDED.compiler_version, code_format = EXCLUDED.code_format, std_json_input = EXCLUDED.std_json_input,
           abi = EXCLUDED.abi, runtime_match = EXCLUDED.runtime_match, creation_match = EXCLUDED.creation_match,
           constructor_args = EXCLUDED.constructor_args, creation_tx_hash = EXCLUDED.creation_tx_hash, license_type = EXCLUDED.license_type,
           job_id = EXCLUDED.job_id, verified_at = now()
         WHERE explorer_verified_contracts.runtime_match <> 'full' AND EXCLUDED.runtime_match = 'full'`,
        [
          fromHex(c.address),
          c.contractPath,
          c.contractName,
          c.compilerVersion,
          c.codeFormat,
          JSON.stringify(c.input),
          JSON.stringify(c.abi),
          c.runtimeMatch,
          c.creationMatch,
          c.constructorArgs === null ? null : fromHex(c.constructorArgs),
          c.creationTxHash === null ? null : fromHex(c.creationTxHash),
          c.licenseType,
          id,
        ],
      );
      await tx.query(
        "UPDATE explorer_verify_jobs SET status = 'verified', finished_at = now(), runtime_match = $2, creation_match = $3 WHERE id = $1",
        [id, c.runtimeMatch, c.creationMatch],
      );
    });
  }

  async getContract(address: string): Promise<VerifiedContract | undefined> {
    const r = await this.db.query('SELECT * FROM explorer_verified_contracts WHERE address = $1', [fromHex(address)]);
    return r.rows[0] === undefined ? undefined : contractFromRow(r.rows[0]);
  }

  /** The top-level transaction that created `address` (from the indexer's tables), if indexed. */
  async creationTx(address: string): Promise<CreationTx | undefined> {
    const r = await this.db.query<{ eth_tx_hash: Uint8Array; from_address: Uint8Array; block_number: bigint; input: Uint8Array }>(
      `SELECT t.eth_tx_hash, t.from_address, t.block_number, t.input FROM receipts r JOIN txs t ON t.eth_tx_hash = r.tx_hash
       WHERE r.contract_address = $1 AND r.status = 1 AND t.to_address IS NULL ORDER BY t.block_number DESC LIMIT 1`,
      [fromHex(address)],
    );
    const row = r.rows[0];
    if (row === undefined) return undefined;
    return { txHash: `0x${toHex(row.eth_tx_hash)}`, from: `0x${toHex(row.from_address)}`, blockNumber: BigInt(row.block_number), input: toHex(row.input) };
  }

  /**
   * Who created a contract: the indexer's receipts for a transaction's own creation, else the archive's
   * archive_contract_creators (when the archive shares this database) for one a contract created; then the
   * creator is the transaction's sender, as Etherscan answers, and the creating contract is `contractFactory`.
   */
  async contractCreation(address: string): Promise<ContractCreation | undefined> {
    const direct = await this.creationTx(address);
    if (direct !== undefined) return { contractCreator: direct.from, txHash: direct.txHash, blockNumber: direct.blockNumber };
    const present = await this.db.query<{ ok: boolean }>("SELECT to_regclass('archive_contract_creators') IS NOT NULL AS ok");
    if (present.rows[0]?.ok !== true) return undefined;
    const r = await this.db.query<{ tx_hash: Uint8Array; block: bigint; creator: Uint8Array; from_address: Uint8Array }>(
      `SELECT c.tx_hash, c.block, c.creator, t.from_address FROM archive_contract_creators c JOIN txs t ON t.eth_tx_hash = c.tx_hash
       WHERE c.address = $1 ORDER BY c.block DESC, c.tx_index DESC LIMIT 1`,
      [fromHex(address)],
    );
    const row = r.rows[0];
    if (row === undefined) return undefined;
    return { contractCreator: `0x${toHex(row.from_address)}`, txHash: `0x${toHex(row.tx_hash)}`, blockNumber: BigInt(row.block), contractFactory: `0x${toHex(row.creator)}` };
  }
}
