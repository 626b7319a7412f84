export {
  clearCredentialFailure,
  readCredentialFailure,
  recordCredentialFailure,
  type CredentialFailure,
} from './credential-state.repository.ts';
export { readStateValue, setStateValueOnce } from './state-value.repository.ts';
export {
  countSignatureFailure,
  signatureFailuresBetween,
} from './signature-failures.repository.ts';
export { recordWriteProbe } from './write-probe.repository.ts';
