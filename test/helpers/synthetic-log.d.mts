export interface SyntheticLogOptions {
  days?: number;
  branches?: string[];
  jobsPerDay?: number;
  /** First day, `YYYY-MM-DD` (UTC). */
  start?: string;
  seed?: number;
}

export declare function syntheticLog(options?: SyntheticLogOptions): string;
