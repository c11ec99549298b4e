// Moved to src/commands/suggest.ts; kept for the conformance command's files until they move into src/commands/conformance/.
export * from '../commands/suggest.js';
