/**
 * The library API: the same building blocks the CLI uses, typed. Import as `import { sign } from 'cai-toolkit'`.
 * Each area appends its exports in its own block below.
 */

// Signing (§5)
export { sign, signedPayload } from './signing/sign.js';
export { verify, type VerifyInput, type VerifyResult, type VerifyReason } from './signing/verify.js';
export { diagnose, type Diagnosis, type DiagnosisCode } from './signing/diagnose.js';
export { parseRawRequest, type RawRequest } from './http/raw-request.js';
export { verifyRequest, type VerifyRequestOptions, type VerifyRequestResult } from './http/verify-request.js';
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
export {
  sampleJob,
  sampleEvent,
  sampleAck,
  sampleDuplicateAck,
  applyOverrides,
  parseSetOverride,
  formatDateTime,
  type Overrides,
} from './spec/sample.js';
export { jsonSchemaFor, openApiDocument, SCHEMA_TARGETS, type SchemaTarget } from './spec/json-schema.js';
export { readNdjsonLines, readNdjsonBatches, type NdjsonLine } from './spec/ndjson.js';
export {
  STATUS_TABLE,
  statusRule,
  classifyStatus,
  UNAUTHORISED_REASONS,
  type StatusRule,
  type StatusClass,
} from './spec/statuses.js';
export { checkJobAck, checkEventAck, isDuplicateAck, type AckCheck } from './spec/acknowledgment.js';
export { parseRetryAfter, isWellFormedRetryAfter } from './spec/retry-after.js';
export {
  isE164,
  isDateTimeWithOffset,
  isLanguageTag,
  E164_PATTERN,
  DATE_TIME_PATTERN,
  LANGUAGE_TAG_PATTERN,
} from './spec/formats.js';

// Sending (§4, §7)
export {
  createDispatcher,
  postOnce,
  proxyFromEnv,
  type ClientOptions,
  type HttpResponse,
  type PostRequest,
  type Dispatcher,
} from './http/client.js';
export { MIN_TLS_VERSION } from './http/tls.js';
export {
  DEFAULT_RETRY_POLICY,
  classifyOutcome,
  decideRetry,
  planSchedule,
  type RetryPolicy,
  type RetryDecision,
  type AttemptOutcome,
  type PlannedSchedule,
  type PlannedAttempt,
} from './http/retry.js';
export {
  deliver,
  type DeliveryRequest,
  type DeliverOptions,
  type DeliveryResult,
  type AttemptRecord,
  type DeliveryError,
} from './http/deliver.js';
export {
  sendJob,
  sendEvent,
  contactJobsUrl,
  type SendJobRequest,
  type SendEventRequest,
  type SendResult,
  type SendVerdict,
} from './http/send.js';
export {
  runBatch,
  type BatchDocument,
  type BatchOptions,
  type BatchRecord,
  type BatchSummary,
  type BatchVerdict,
} from './send/batch.js';
export { splitNdjson, acceptedKeysFromResults } from './send/batch-files.js';

// Reference receivers
export {
  startMockPlatform,
  type MockPlatformOptions,
  type RunningMock,
  type RunningMockPlatform,
  type MockRequestEntry,
} from './mock/platform.js';
export {
  startMockProvider,
  parseScenario,
  scenarioName,
  type MockProviderOptions,
  type RunningMockProvider,
  type SentEventEntry,
  type JobAck,
  type Scenario,
} from './mock/provider.js';
export { readMockLog, type MockLogRecord, type LoadedLog } from './mock/log.js';
export { loadCatalog, type CatalogBranch } from './spec/catalog.js';
export { PLATFORM_FAULTS, PROVIDER_FAULTS, type PlatformFault, type ProviderFault } from './mock/faults.js';

// Conformance: one catalogue, one runner, reporters as a map
export { runConformance, planFor, type ConformanceOptions } from './conformance/run-receiver.js';
export {
  CATALOGUE,
  SENDER_CATALOGUE,
  checksFor,
  describeCatalogue,
  planChecks,
  planRun,
  type Selection,
} from './conformance/catalogue.js';
export type { Check, CheckMeta, ReceiverCheck, SenderCheck, Outcome } from './conformance/check.js';
export {
  REPORTERS,
  viewOf,
  type ReporterName,
  type ReportView,
  type ReporterOptions,
} from './conformance/reporters/index.js';
export { countLine } from './conformance/reporters/text.js';
export { parseWaivers, type Waiver } from './conformance/waivers.js';
export type {
  CheckResult,
  CheckVerdict,
  CheckLevel,
  SuiteReport,
  SuiteSummary,
  ScenarioSummary,
  StopReport,
  PreflightReport,
  ExchangeRecord,
  BodyRecord,
} from './conformance/types.js';
export type { FailureCause, RefusalDiagnosis, SignatureFinding, SigningTrial } from './conformance/diagnose/types.js';
// Conformance of a sender (`cai conformance run --role sender`): cai listens, runs the trigger, judges what arrives.
export {
  runSenderConformance,
  type SenderConformanceOptions,
  type SenderRunHooks,
  type ScenarioStart,
} from './conformance/run-sender.js';
// Reproductions are shell scripts that run cai: written in the CLI's words, passed to a run as `reproducer`.
export { receiverReproducer, senderReproducer } from './commands/conformance/repro-defaults.js';
export type { ReproducerFactory, ReproSetup } from './conformance/runner.js';

// Pages (`--html`, `--summary`, `cai report --html`): pure functions of a report, returning the file's text.
export {
  renderConformanceHtml,
  type ConformanceView,
  type ConformancePageOptions,
} from './conformance/reporters/html.js';
export { renderJobSummary, escapeMarkdown, type JobSummaryOptions } from './conformance/reporters/markdown.js';
export { renderOperationHtml, type OperationView, type OperationPageOptions } from './commands/report/html-report.js';

// The mocks' live inspector (`cai mock … --ui`): a store fed by the mock's observer hooks, and its web server.
export {
  InspectorStore,
  DEFAULT_INSPECTOR_LIMITS,
  startInspectorServer,
  type InspectorLimits,
  type InspectorServerOptions,
  type RunningInspector,
  type InspectorCredential,
  type InspectorSigning,
  type CopyCommands,
  type CopyCommandsOf,
} from './inspector/index.js';
// The inspector's copy buttons as the CLI words them: `cai replay` and `cai sign | curl` lines.
export { copyCommandsFor, secretFlagOf, type CommandTargets } from './commands/mock/copy-commands.js';

// Configuration, doctor, report
export {
  parseConfig,
  loadConfig,
  loadProfile,
  chooseEnvironment,
  type LoadedConfig,
  type ChosenEnvironment,
  type Profile,
} from './config/load.js';
export { locateConfig, CONFIG_FILE_NAME, type ConfigLocation } from './config/locate.js';
export {
  CaiConfigSchema,
  EnvironmentSchema,
  SecretRefSchema,
  type CaiConfig,
  type Environment as ConfigEnvironment,
} from './config/schema.js';
export { inspectSecretRef, type SecretRef, type SecretRefStatus } from './config/secret-refs.js';
export { CONFIG_DEFAULT_RULES, type DefaultRule, type ConfigField } from './commands/common/config-defaults-table.js';
export { runDoctor, targetsOf, type DoctorOptions, type DoctorReport } from './doctor/run.js';
export type { CheckResult as DoctorCheckResult, Verdict as DoctorVerdict, DoctorTarget } from './doctor/types.js';
export {
  ReportBuilder,
  type OperationReport,
  type BranchReport,
  type ReportFilter,
} from './report/aggregate.js';
export { parseLogLine, type LogRecord } from './report/log.js';
export {
  reportFromLogs,
  readLog,
  LogReadError,
  LogLineTooLongError,
  NotALogError,
  type MalformedLine,
  type LogFileCounts,
} from './report/read.js';
export { toCsv as reportToCsv } from './report/render.js';
