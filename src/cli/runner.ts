// Moved to src/commands/runner.ts; kept for the conformance command's files until they move into src/commands/conformance/.
export * from '../commands/runner.js';
