/**
 * The mocks' live inspector (`cai mock platform|provider --ui`): a store the mock feeds through its observer
 * hooks, and a local web server that shows what it keeps. See docs/mocks.md, "Inspector".
 */
export { InspectorStore } from './store.js';
export { DEFAULT_INSPECTOR_LIMITS, type InspectorLimits } from './limits.js';
export { startInspectorServer, type InspectorServerOptions, type RunningInspector } from './server.js';
export type { CopyCommands, CopyCommandsOf } from './detail.js';
export type { InspectorCredential, InspectorSigning } from './explain.js';
