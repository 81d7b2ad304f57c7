export {
  AmiActionError,
  AmiClient,
  type AmiClientOptions,
  type AmiMessage,
  type AmiState,
  type AmiStatusSnapshot,
  header,
} from './client.js'
