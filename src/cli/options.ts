// Moved to src/commands/options.ts; kept for the conformance command's files until they move into src/commands/conformance/.
export * from '../commands/options.js';
