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

// Sending (§4, §7)

// Reference receivers

// Conformance
export { runConformance, planFor, type ConformanceOptions } from './conformance/suite.js';
export { CATALOGUE, describeCatalogue, planChecks, type Selection } from './conformance/catalogue.js';
export { toJunit, countLine } from './conformance/report.js';
export { parseWaivers, type Waiver } from './conformance/waivers.js';
export type { CheckMeta, CheckResult, CheckVerdict, CheckLevel, SuiteReport, SuiteSummary } from './conformance/types.js';

// Configuration, doctor, report
