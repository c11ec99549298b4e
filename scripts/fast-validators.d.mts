// Types of scripts/fast-validators.mjs, for the test that checks the generated module is current.
export declare function fastValidatorTargets(eventTypes: readonly string[]): string[];
export declare function fastValidatorSource(
  jsonSchemaFor: (target: never) => Record<string, unknown>,
  eventTypes: readonly string[],
): string;
