// Moved to src/commands/report-files.ts; kept for the conformance command's files until they move into src/commands/conformance/.
export * from '../commands/report-files.js';
