export {
  clearCredentialFailure,
  readCredentialFailure,
  recordCredentialFailure,
  type CredentialFailure,
} from './credential-state.repository.ts';
