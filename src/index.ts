/**
 * The library API: the same building blocks the CLI uses, typed. Import as `import { sign } from 'cai'`.
 * Each area appends its exports in its own block below.
 */

// Signing (§5)
export { sign, signedPayload } from './signing/sign.js';
export { verify, type VerifyInput, type VerifyResult, type VerifyReason } from './signing/verify.js';
export { diagnose, type Diagnosis, type DiagnosisCode } from './signing/diagnose.js';
export { parseRawRequest, type RawRequest } from './http/raw-request.js';
export * as spec from './spec/constants.js';
export { CaiError, ExitCode } from './errors.js';

// Records (§2): schemas, validation, samples
export * as schemas from './spec/schemas.js';
export {
  validateDocument,
  validateBody,
  detectKind,
  DOCUMENT_KINDS,
  type DocumentKind,
  type DocumentVerdict,
  type ValidationIssue,
  type ValidateOptions,
  type Branch,
} from './spec/validate.js';
export { sampleJob, sampleEvent, applyOverrides, parseSetOverride, formatDateTime, type Overrides } from './spec/sample.js';
export { isE164, isDateTimeWithOffset, isLanguageTag, E164_PATTERN, DATE_TIME_PATTERN, LANGUAGE_TAG_PATTERN } from './spec/formats.js';

// Sending (§4, §7)
export {
  createDispatcher,
  postOnce,
  proxyFromEnv,
  MIN_TLS_VERSION,
  type ClientOptions,
  type HttpResponse,
  type PostRequest,
  type Dispatcher,
} from './http/client.js';
export {
  DEFAULT_RETRY_POLICY,
  classifyOutcome,
  decideRetry,
  parseRetryAfter,
  planSchedule,
  type RetryPolicy,
  type RetryDecision,
  type AttemptOutcome,
  type PlannedSchedule,
  type PlannedAttempt,
} from './http/retry.js';
export { deliver, type DeliveryRequest, type DeliverOptions, type DeliveryResult, type AttemptRecord, type DeliveryError } from './http/deliver.js';

// Reference receivers
export { startMockPlatform, type MockPlatformOptions, type RunningMock, type RunningMockPlatform, type MockRequestEntry } from './mock/platform.js';
export { startMockProvider, parseScenario, scenarioName, type MockProviderOptions, type RunningMockProvider, type SentEventEntry, type JobAck, type Scenario } from './mock/provider.js';
export { readMockLog, type MockLogRecord, type LoadedLog } from './mock/log.js';
export { loadCatalog, type CatalogBranch } from './mock/catalog.js';
export { PLATFORM_FAULTS, PROVIDER_FAULTS, type PlatformFault, type ProviderFault } from './mock/faults.js';

// Conformance

// Configuration, doctor, report
