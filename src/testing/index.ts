/**
 * `agent-incidents/testing`: tools for testing a runtime's recovery against
 * real sockets. See {@link startFakeProvider}.
 */
export { DEFAULT_REPLY, reply, startFakeProvider } from './fake-provider.js';
export type {
  DialectName,
  FakeProvider,
  FakeProviderOptions,
  FinishReason,
  ProviderError,
  RecordedRequest,
  Reply,
  RequestEnd,
  ScriptReply,
  StatusReply,
  Step,
} from './fake-provider.js';
