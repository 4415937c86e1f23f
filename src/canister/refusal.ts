// An ingress message refused by canister_inspect_message carries the service's stable error code in the
// text of its rejection. On the IC, inspection runs on one replica and costs the canister nothing (up to its
// 200 M instruction limit), and its verdict reaches the caller only as the platform's rejection text; so
// the canister traps with this marker and clients (src/client) read the code back and answer exactly what
// the method itself would have (docs/hardening.md "Submits").

const MARKER = 'evm.refused';

/** The trap message of a refusal: `evm.refused[<code>] <message>`. */
export const formatRefusal = (code: string, message: string): string => `${MARKER}[${code}] ${message}`;

/** The code and message of a refusal found anywhere in a rejection's text (platforms wrap it in their own words). */
export function parseRefusal(text: string): { readonly code: string; readonly message: string } | undefined {
  const at = text.indexOf(`${MARKER}[`);
  if (at < 0) return undefined;
  const end = text.indexOf(']', at);
  if (end < 0) return undefined;
  const code = text.slice(at + MARKER.length + 1, end);
  // Codes are short identifiers (src/core/errors.ts); anything else is not ours.
  if (!/^[A-Za-z][A-Za-z0-9_.:]{0,63}$/.test(code)) return undefined;
  // The message runs to the end of the line (agents append request details on later lines).
  const rest = text.slice(end + 1).replace(/^ /, '');
  const nl = rest.search(/[\r\n]/);
  return { code, message: (nl < 0 ? rest : rest.slice(0, nl)).slice(0, 500) };
}
