// The IC HTTP interface for a canister in the Node IC host (see server.ts, listen.ts and docs/ic-http.md).
export { decodeEnvelope, verifySignature, type Envelope, type IcHttpError } from './envelope.js';
export { KEYS_FILE, SubnetKeys } from './keys.js';
export { CANISTER_RANGE, ErrorCode, errorCodeOf, IcHttpHandler, IMPL_VERSION, MAX_BODY_BYTES } from './server.js';
export { startIcHttp, type IcHttpOptions, type IcHttpServer } from './listen.js';
