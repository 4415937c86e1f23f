// The verification form (it posts to SPEC's API and polls the job's status).
import { html } from './html.js';
import type { ExplorerQueries } from './queries.js';
import { VERIFY_SCRIPT } from './scripts.js';
import { type PagesDeps } from './common.js';

export async function verifyPage(_deps: PagesDeps, _q: ExplorerQueries, _path: string[], params: URLSearchParams) {
  const address = params.get('address') ?? '';
  return {
    title: 'Verify a contract',
    body: html`<h1>Verify and publish a contract's source</h1>
<div class="card"><form class="stack" id="verify-form">
<label for="v-address">Contract address</label><input type="text" id="v-address" name="address" value="${address}" required>
<label for="v-compiler">Compiler version</label><input type="text" id="v-compiler" name="compilerVersion" placeholder="0.8.37 or v0.8.37+commit.f401782d" required>
<label for="v-name">Contract name (e.g. Token or contracts/Token.sol:Token)</label><input type="text" id="v-name" name="contractName" required>
<label for="v-kind">Input</label><select id="v-kind" name="kind"><option value="single">Single Solidity file</option><option value="standard-json">Standard JSON input</option></select>
<label for="v-source">Source / standard JSON</label><textarea id="v-source" name="source" required></textarea>
<label><input type="checkbox" id="v-optimizer" name="optimizer"> Optimizer enabled (single file)</label>
<label for="v-runs">Optimizer runs</label><input type="text" id="v-runs" name="runs" value="200">
<label for="v-args">Constructor arguments (ABI-encoded hex, optional)</label><input type="text" id="v-args" name="constructorArguments">
<button type="submit">Submit</button></form></div>
<div class="card"><h2>Job</h2><div id="verify-status" class="muted">Not submitted.</div></div>`,
    script: VERIFY_SCRIPT,
  };
}
